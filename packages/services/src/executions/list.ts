import { schema, withTenant } from '@weft/db';
import { and, count, desc, eq, gte, inArray, lte, type SQL } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import type { PageRequest } from '../pagination';
import { presentExecution } from './present';

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

export interface ListExecutionsInput extends PageRequest {
  workflowId?: string;
  status?: ExecutionStatusFilter;
  from?: Date;
  to?: Date;
}

export async function listExecutions({
  ctx,
  input,
  temporalUiUrl,
}: VerbArgs<ListExecutionsInput> & { temporalUiUrl?: string }) {
  const t = schema.executions;
  const where: SQL[] = [eq(t.organizationId, ctx.organizationId)];
  if (input.workflowId) where.push(eq(t.workflowId, input.workflowId));
  if (input.status === 'completed') where.push(inArray(t.status, ['success', 'partial']));
  else if (input.status) where.push(eq(t.status, input.status));
  if (input.from) where.push(gte(t.startedAt, input.from));
  if (input.to) where.push(lte(t.startedAt, input.to));
  const condition = and(...where);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx
      .select()
      .from(t)
      .where(condition)
      .orderBy(desc(t.startedAt), desc(t.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    const [totals] = await tx.select({ total: count() }).from(t).where(condition);
    return { rows: rows.map((r) => presentExecution(r, temporalUiUrl)), total: totals?.total ?? 0 };
  });
}
