import { drizzle } from 'drizzle-orm/postgres-js';
import type { Database } from './client';

/** What service verbs may do inside the tenancy transaction. */
export type Tx = Pick<Database, 'select' | 'selectDistinct' | 'insert' | 'update' | 'delete' | 'execute'>;

/**
 * The tenancy transaction: every query about an organization's data runs inside it.
 * `set_config(..., true)` is transaction-local, so a pooled connection never carries an
 * organization over to the next request; the RLS policies read it through weft_current_org().
 *
 * BEGIN and set_config are pipelined with the work's first query on a reserved connection (one
 * network write instead of three round trips): statements on one connection run in order, and if
 * either fails the transaction is aborted, so the work's queries fail instead of running unscoped.
 */
export async function withTenant<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const connection = await db.$client.reserve();
  // drizzle reads type parsers from `options`, which a reserved handle lacks; they are the pool's.
  Object.assign(connection, { options: db.$client.options });
  try {
    const begin = connection`begin`.execute();
    const scope = connection`select set_config('app.org_id', ${organizationId}, true)`.execute();
    // Observed below; these handlers only keep a failure from being reported as unhandled meanwhile.
    begin.catch(() => {});
    scope.catch(() => {});
    let result: T;
    try {
      result = await work(drizzle(connection));
      await begin;
      await scope;
    } catch (error) {
      await connection`rollback`.catch(() => {});
      throw error;
    }
    await connection`commit`;
    return result;
  } finally {
    connection.release();
  }
}
