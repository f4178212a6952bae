import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import type postgres from 'postgres';
import { callerOf, callerRefusal, toTextArray } from './caller';
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
 *
 * For an API request served from the key cache (`db` carries a Caller, see caller.ts), the scope
 * statement is weft_enter_organization_as_key instead: it sets the same setting and re-checks the
 * key in the same pipelined write, and its refusal aborts the transaction before the work runs.
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
    const begin = observed(connection`begin`.execute());
    const scope = observed(enterOrganization(connection, db, organizationId));
    let result: T;
    try {
      result = await work(drizzle(connection));
      await begin;
      await scope;
    } catch (error) {
      await connection`rollback`.catch(() => {});
      throw await refusalOr(scope, error);
    }
    await connection`commit`;
    return result;
  } finally {
    connection.release();
  }
}

const dialect = new PgDialect();

/**
 * The tenancy transaction for work that is a single statement: BEGIN, the scope statement, the
 * statement and COMMIT leave in one network write, one round trip in all where withTenant needs two
 * (it cannot know when a work function has sent its last query, so its COMMIT waits for the work).
 * For hot reads such as GET /workflows/{id}. Returns the driver's rows: column names as in the
 * database, values as the pool's parsers leave them (see rowsOf in rows.ts).
 *
 * On a failure the transaction is rolled back explicitly, as in withTenant, before the connection
 * goes back to the pool.
 */
export async function queryInTenant(
  db: Database,
  organizationId: string,
  statement: SQL,
): Promise<Record<string, unknown>[]> {
  const query = dialect.sqlToQuery(statement);
  const connection = await db.$client.reserve();
  try {
    const begin = observed(connection`begin`.execute());
    const scope = observed(enterOrganization(connection, db, organizationId));
    const rows = observed(
      connection.unsafe(query.sql, query.params as postgres.ParameterOrJSON<never>[]).execute(),
    );
    const commit = observed(connection`commit`.execute());
    try {
      await begin;
      await scope;
      const result = await rows;
      await commit;
      return [...result];
    } catch (error) {
      // The driver drops what is still queued behind a failed statement, COMMIT included.
      await connection`rollback`.catch(() => {});
      throw await refusalOr(scope, error);
    }
  } finally {
    connection.release();
  }
}

/** The transaction's first statement after BEGIN: the organization setting (and caller re-check). */
function enterOrganization(connection: postgres.ReservedSql, db: Database, organizationId: string) {
  const caller = callerOf(db);
  if (!caller) return connection`select set_config('app.org_id', ${organizationId}, true)`.execute();
  const permissions = toTextArray(caller.reliedOn);
  return connection`select weft_enter_organization_as_key(${organizationId}, ${caller.apiKeyId}, ${permissions})`
    .execute()
    .then(() => {
      caller.confirmed = true;
    });
}

/** Awaited later; the handler only keeps a failure from being reported as unhandled meanwhile. */
function observed<P extends PromiseLike<unknown>>(pending: P): P {
  Promise.resolve(pending).catch(() => {});
  return pending;
}

/** A refused caller makes the work's statements fail with "transaction aborted": report why. */
async function refusalOr(scope: PromiseLike<unknown>, error: unknown): Promise<unknown> {
  const refused = await Promise.resolve(scope).then(() => undefined, callerRefusal);
  return refused ?? error;
}
