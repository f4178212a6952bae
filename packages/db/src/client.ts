import { randomBytes } from 'node:crypto';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Database = PostgresJsDatabase<typeof schema> & { $client: postgres.Sql };

export interface DatabaseHandle {
  db: Database;
  sql: postgres.Sql;
  /**
   * How much of this pool is in use now: its connections open and running a query (this probe's
   * own excluded), seen from PostgreSQL, and the pool's size. For the DB pool saturation metric.
   */
  poolUse(): Promise<{ busy: number; open: number; max: number }>;
  close(): Promise<void>;
}

export function connectDatabase(url: string, options: { max?: number } = {}): DatabaseHandle {
  const max = options.max ?? 10;
  // One name per pool, so PostgreSQL can tell this pool's sessions from the other replicas'.
  const applicationName = `weft/${randomBytes(4).toString('hex')}`;
  const client = postgres(url, {
    max,
    onnotice: () => {},
    // Timestamps come back as Date; jsonb as parsed values.
    connection: { application_name: applicationName },
  });
  const db = drizzle(client, { schema });
  return {
    db,
    sql: client,
    async poolUse() {
      const [row] = await client<{ busy: number; open: number }[]>`
        select (count(*) filter (where state <> 'idle' and pid <> pg_backend_pid()))::int as busy,
               count(*)::int as open
        from pg_stat_activity where application_name = ${applicationName}`;
      return { busy: row?.busy ?? 0, open: row?.open ?? 0, max };
    },
    close: () => client.end({ timeout: 5 }),
  };
}
