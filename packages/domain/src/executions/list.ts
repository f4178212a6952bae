import { schema, type Tx, withTenant } from '@weft/db';
import { and, asc, desc, eq, gte, ilike, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { validationError } from '../errors';
import { isUuid } from '../text';
import { decodeExecutionCursor, type ExecutionCursor, encodeExecutionCursor } from './list-cursor';
import { type ExecutionSummaryRow, presentExecution } from './present';

export const EXECUTION_STATUS_FILTERS = [
  'pending',
  'running',
  'waiting',
  'success',
  'partial',
  'failed',
  'cancelled',
  'completed',
] as const;
export type ExecutionStatusFilter = (typeof EXECUTION_STATUS_FILTERS)[number];

export const EXECUTION_MODES = ['production', 'test'] as const;
export type ExecutionModeFilter = (typeof EXECUTION_MODES)[number];

export interface ListExecutionsInput {
  perPage: number;
  /** Offset paging (the spec's `page`). Give this or `cursor`, not both; neither is page 1. */
  page?: number;
  /** Keyset paging: a `next_cursor`/`prev_cursor` from an earlier answer (opaque to callers). */
  cursor?: string;
  workflowId?: string;
  status?: ExecutionStatusFilter;
  mode?: ExecutionModeFilter;
  /** Replays of this execution only. */
  replayOf?: string;
  /** An execution id (whole), or text its trigger data or event name contains (any case). */
  search?: string;
  from?: Date;
  to?: Date;
}

/**
 * Totals are counted exactly up to this many rows; above it the planner's estimate is answered
 * (`total_exact: false`). Counting a million rows costs more than the page itself, on every request.
 */
export const EXACT_TOTAL_LIMIT = 10_000;

const t = schema.executions;

/** Only what the list shows: the graph snapshot and trigger payload can be large (TOAST) and stay put. */
const summaryColumns: { [K in keyof ExecutionSummaryRow]: (typeof t)[K] } = {
  id: t.id,
  workflowId: t.workflowId,
  workflowName: t.workflowName,
  workflowVersion: t.workflowVersion,
  status: t.status,
  trigger: t.trigger,
  event: t.event,
  attempt: t.attempt,
  error: t.error,
  parentExecutionId: t.parentExecutionId,
  startedAt: t.startedAt,
  completedAt: t.completedAt,
  durationMs: t.durationMs,
  mode: t.mode,
  replayOf: t.replayOf,
  testOptions: t.testOptions,
  retryOf: t.retryOf,
};

/** The list's filters as one condition (exported with the queries for `weft bench executions`). */
export function executionListCondition(organizationId: string, input: ListExecutionsInput): SQL {
  const where: SQL[] = [eq(t.organizationId, organizationId)];
  if (input.workflowId) where.push(eq(t.workflowId, input.workflowId));
  if (input.status === 'completed') where.push(inArray(t.status, ['success', 'partial']));
  else if (input.status) where.push(eq(t.status, input.status));
  if (input.mode) where.push(eq(t.mode, input.mode));
  if (input.replayOf) where.push(eq(t.replayOf, input.replayOf));
  if (input.search) where.push(searchCondition(input.search));
  if (input.from) where.push(gte(t.startedAt, input.from));
  if (input.to) where.push(lte(t.startedAt, input.to));
  return and(...where) as SQL;
}

/**
 * The list's search box: a whole execution id finds that execution; other text is looked for in the
 * trigger data (its JSON text) and the event name. A scan of the organization's rows in the
 * other filters' range, so it is bounded by them and by the page; fine at the sizes the list's
 * exact totals serve, and the other filters narrow it first.
 */
function searchCondition(search: string): SQL {
  const text = search.trim();
  if (isUuid(text)) return eq(t.id, text.toLowerCase());
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return or(ilike(sql`${t.triggerPayload}::text`, pattern), ilike(t.event, pattern)) as SQL;
}

/** Row-value comparison on the sort key: one range of the (…, started_at desc, id desc) indexes. */
function beyond(key: ExecutionCursor): SQL {
  const value = sql`(${key.startedAt.toISOString()}::timestamptz, ${key.id}::uuid)`;
  return key.direction === 'older'
    ? sql`(${t.startedAt}, ${t.id}) < ${value}`
    : sql`(${t.startedAt}, ${t.id}) > ${value}`;
}

/**
 * The queries behind one page, exported so `weft bench executions` can EXPLAIN exactly what runs.
 * Every query fetches one row more than the page: that row only says whether another page follows.
 */
export function executionPageQueries(tx: Tx, condition: SQL, perPage: number) {
  const newestFirst = [desc(t.startedAt), desc(t.id)];
  return {
    /**
     * Offset paging. Past page 1 as a deferred join: the skipped rows are counted off the index alone
     * (an index-only scan), and only the page's own rows are read from the table (by primary key).
     * Page 1 skips nothing, so the plain index range is cheaper there.
     */
    offset(page: number) {
      if (page <= 1) {
        return tx
          .select(summaryColumns)
          .from(t)
          .where(condition)
          .orderBy(...newestFirst)
          .limit(perPage + 1);
      }
      const ids = tx
        .select({ id: t.id })
        .from(t)
        .where(condition)
        .orderBy(...newestFirst)
        .limit(perPage + 1)
        .offset((page - 1) * perPage)
        .as('page_ids');
      return tx
        .select(summaryColumns)
        .from(t)
        .innerJoin(ids, eq(t.id, ids.id))
        .orderBy(...newestFirst);
    },
    /** Keyset paging: starts at the key, so page 500 reads as few rows as page 1. */
    keyset(key: ExecutionCursor) {
      const order = key.direction === 'older' ? newestFirst : [asc(t.startedAt), asc(t.id)];
      return tx
        .select(summaryColumns)
        .from(t)
        .where(and(condition, beyond(key)))
        .orderBy(...order)
        .limit(perPage + 1);
    },
    /** At most EXACT_TOTAL_LIMIT + 1 rows are counted, off the index. */
    cappedCount: () =>
      tx.execute<{ n: number }>(
        sql`select count(*)::int as n from (select 1 from ${t} where ${condition} limit ${EXACT_TOTAL_LIMIT + 1}) capped`,
      ),
    estimate: () =>
      tx.execute<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
        sql`explain (format json) select 1 from ${t} where ${condition}`,
      ),
  };
}

interface PageSlice {
  rows: ExecutionSummaryRow[];
  page: number;
  hasOlder: boolean;
  hasNewer: boolean;
}

async function readPage(
  queries: ReturnType<typeof executionPageQueries>,
  perPage: number,
  page: number,
  key: ExecutionCursor | undefined,
): Promise<PageSlice> {
  if (!key) {
    const rows = await queries.offset(page);
    return { rows: rows.slice(0, perPage), page, hasOlder: rows.length > perPage, hasNewer: page > 1 };
  }
  const rows = await queries.keyset(key);
  if (key.direction === 'older') {
    return { rows: rows.slice(0, perPage), page: key.page, hasOlder: rows.length > perPage, hasNewer: true };
  }
  // Going back: when the newer side holds no more than a page, that is the first page; serve it
  // whole (rows may have been added or removed since the cursor was made).
  if (rows.length <= perPage) return readPage(queries, perPage, 1, undefined);
  return {
    rows: rows.slice(0, perPage).reverse(),
    page: Math.max(2, key.page),
    hasOlder: true,
    hasNewer: true,
  };
}

async function countTotal(
  queries: ReturnType<typeof executionPageQueries>,
  atLeast: number,
): Promise<{ total: number; exact: boolean }> {
  const [counted] = await queries.cappedCount();
  const n = Number(counted?.n ?? 0);
  if (n <= EXACT_TOTAL_LIMIT) return { total: n, exact: true };
  const [plan] = await queries.estimate();
  const estimate = Math.round(plan?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  return { total: Math.max(estimate, n, atLeast), exact: false };
}

/**
 * GET /executions: newest first by `(started_at, id)` (the id breaks ties, so every row has one
 * place). `page` skips rows (deferred join, cheap while the index is), `cursor` seeks to a key (the
 * same cost at any depth); both answer cursors for the neighbouring pages.
 */
export async function listExecutions({
  ctx,
  input,
  temporalUiUrl,
}: VerbArgs<ListExecutionsInput> & { temporalUiUrl?: string }) {
  if (input.page !== undefined && input.cursor !== undefined) {
    throw validationError({ page: ['Give either page or cursor, not both.'] });
  }
  const key = input.cursor === undefined ? undefined : decodeExecutionCursor(input.cursor);
  const condition = executionListCondition(ctx.organizationId, input);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const queries = executionPageQueries(tx, condition, input.perPage);
    const slice = await readPage(queries, input.perPage, input.page ?? 1, key);
    const seen = (slice.page - 1) * input.perPage + slice.rows.length + (slice.hasOlder ? 1 : 0);
    const { total, exact } = await countTotal(queries, seen);
    const first = slice.rows[0];
    const last = slice.rows.at(-1);
    const cursor = (row: ExecutionSummaryRow, page: number, direction: ExecutionCursor['direction']) =>
      encodeExecutionCursor({ startedAt: row.startedAt, id: row.id, page, direction });
    return {
      rows: slice.rows.map((r) => presentExecution(r, temporalUiUrl)),
      page: slice.page,
      total,
      totalExact: exact,
      nextCursor: slice.hasOlder && last ? cursor(last, slice.page + 1, 'older') : null,
      prevCursor: slice.hasNewer && first ? cursor(first, slice.page - 1, 'newer') : null,
    };
  });
}
