import { sql } from 'drizzle-orm';
import type { Database } from './client';
import { postgresErrorCode } from './errors';

/**
 * The API key behind a request whose organization and permissions came from the API's in-process
 * cache. The cache is never the last word: every tenancy transaction opened for the request enters
 * the organization through `weft_enter_organization_as_key`, which re-checks in PostgreSQL, before
 * the work's statements, that the key is still valid, still belongs to the organization and still
 * holds every permission in `reliedOn`. A revoked or narrowed key is therefore refused on the very
 * next request on every replica, with no extra round trip (the check is pipelined with BEGIN).
 */
export interface Caller {
  apiKeyId: string;
  organizationId: string;
  /** Permissions the request's decisions took from the cache (route guards add theirs). */
  reliedOn: string[];
  /** Set once PostgreSQL has confirmed the key during this request (a look-up or a re-check). */
  confirmed: boolean;
}

/** Why PostgreSQL refused a cached caller: the key is gone or revoked (401) or lacks a permission (403). */
export class CallerRefused extends Error {
  override name = 'CallerRefused';
  constructor(readonly reason: 'revoked' | 'forbidden') {
    super(
      reason === 'revoked'
        ? 'The API key is invalid or has been revoked.'
        : 'This API key lacks a permission this request needs.',
    );
  }
}

const REFUSALS: Record<string, CallerRefused['reason']> = { WF401: 'revoked', WF403: 'forbidden' };

/** The refusal raised by weft_enter_organization_as_key, if `error` is one. */
export function callerRefusal(error: unknown): CallerRefused | undefined {
  if (error instanceof CallerRefused) return error;
  const reason = REFUSALS[postgresErrorCode(error) ?? ''];
  return reason ? new CallerRefused(reason) : undefined;
}

const CALLER = Symbol('weft.caller');
type BoundDatabase = Database & { [CALLER]?: Caller };

/**
 * The database handle a request's service verbs receive: the same pool, with the caller attached,
 * so that withTenant re-checks the caller without every verb having to pass it along. A prototype
 * child: it shares everything with `db` and only adds the caller.
 */
export function bindCaller(db: Database, caller: Caller): Database {
  const bound = Object.create(db) as BoundDatabase;
  bound[CALLER] = caller;
  return bound;
}

export function callerOf(db: Database): Caller | undefined {
  return (db as BoundDatabase)[CALLER];
}

/**
 * Re-checks the caller in one statement, outside any transaction: for a request that ends without
 * having opened a tenancy transaction (a static catalog, an early validation error), and for a
 * permission the cache says the key lacks (`also`). Throws CallerRefused.
 */
export async function confirmCaller(db: Database, caller: Caller, also: string[] = []) {
  const permissions = toTextArray([...caller.reliedOn, ...also]);
  try {
    await db.execute(
      sql`select weft_enter_organization_as_key(${caller.organizationId}, ${caller.apiKeyId}, ${permissions})`,
    );
  } catch (error) {
    throw callerRefusal(error) ?? error;
  }
  caller.confirmed = true;
}

/**
 * A text[] literal: postgres.js infers no type for an empty array, and a literal keeps one statement
 * text for every request (one cached plan). Permission names are `[a-z_.*]`, but quote anyway.
 */
export function toTextArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
