import { randomBytes } from 'node:crypto';
import { connectDatabase, type DatabaseHandle } from '@weft/db';
import postgres from 'postgres';
import { inject } from 'vitest';

export interface TestDatabase {
  name: string;
  /** As the runtime role weft_app (RLS applies). */
  app: DatabaseHandle;
  appUrl: string;
  /** As the owner (superuser): for set-up and for looking behind RLS in assertions. */
  admin: postgres.Sql;
  adminUrl: string;
  drop(): Promise<void>;
}

const url = (user: string, password: string, port: number, database: string) =>
  `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;

/** A fresh, migrated database on the shared test server, cloned from the template in milliseconds. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const pg = inject('postgres');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const server = postgres(url('postgres', pg.adminPassword, pg.port, 'postgres'), {
    max: 1,
    onnotice: () => {},
  });
  try {
    // Cloning a template fails while another clone reads it, so test files take turns.
    await server.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(4242)`;
      await tx.unsafe(`CREATE DATABASE ${name} TEMPLATE ${pg.template}`);
    });
  } catch (error) {
    // CREATE DATABASE cannot run inside a transaction block on some versions; fall back to a session lock.
    if (!String(error).includes('cannot run inside a transaction block')) throw error;
    await server`select pg_advisory_lock(4242)`;
    try {
      await server.unsafe(`CREATE DATABASE ${name} TEMPLATE ${pg.template}`);
    } finally {
      await server`select pg_advisory_unlock(4242)`;
    }
  } finally {
    await server.end();
  }
  const appUrl = url('weft_app', pg.appPassword, pg.port, name);
  const adminUrl = url('postgres', pg.adminPassword, pg.port, name);
  const app = connectDatabase(appUrl, { max: 10 });
  const admin = postgres(adminUrl, { max: 2, onnotice: () => {} });
  return {
    name,
    app,
    appUrl,
    admin,
    adminUrl,
    async drop() {
      await app.close();
      await admin.end();
      const s = postgres(url('postgres', pg.adminPassword, pg.port, 'postgres'), {
        max: 1,
        onnotice: () => {},
      });
      await s.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await s.end();
    },
  };
}
