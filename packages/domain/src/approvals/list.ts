import { schema, withTenant } from '@weft/db';
import { and, count, desc, eq, getTableColumns, inArray, type SQL } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import type { PageRequest } from '../pagination';
import { isUuid } from '../text';
import { presentApproval } from './present';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'timed_out'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * GET /approvals: newest first, optionally of one status. Pending means still awaited: an approval
 * whose execution was cancelled (or otherwise ended) is not listed as pending.
 */
export async function listApprovals({ ctx, input }: VerbArgs<PageRequest & { status?: ApprovalStatus }>) {
  const a = schema.approvals;
  const e = schema.executions;
  const where: SQL[] = [eq(a.organizationId, ctx.organizationId)];
  if (input.status) where.push(eq(a.status, input.status));
  if (input.status === 'pending') where.push(inArray(e.status, ['pending', 'running', 'waiting']));
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx
      .select({ ...getTableColumns(a), workflowName: e.workflowName })
      .from(a)
      .innerJoin(e, eq(e.id, a.executionId))
      .where(and(...where))
      .orderBy(desc(a.createdAt), desc(a.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    const [total] = await tx
      .select({ n: count() })
      .from(a)
      .innerJoin(e, eq(e.id, a.executionId))
      .where(and(...where));
    return { rows: rows.map(presentApproval), total: total?.n ?? 0 };
  });
}

/** One approval of the organization. */
export async function getApproval({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('Approval');
  const a = schema.approvals;
  const e = schema.executions;
  const [row] = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .select({ ...getTableColumns(a), workflowName: e.workflowName })
      .from(a)
      .innerJoin(e, eq(e.id, a.executionId))
      .where(and(eq(a.id, input.id), eq(a.organizationId, ctx.organizationId))),
  );
  if (!row) throw notFound('Approval');
  return presentApproval(row);
}
