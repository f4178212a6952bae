import { schema, withTenant } from '@weft/db';
import { and, count, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { escapeLike, type PageRequest } from '../pagination';
import { presentWorkflowSummary } from './present';

export interface ListWorkflowsInput extends PageRequest {
  status?: 'active' | 'inactive' | 'draft';
  search?: string;
  triggerType?: string;
}

export async function listWorkflows({ ctx, input }: VerbArgs<ListWorkflowsInput>) {
  const t = schema.workflows;
  const where: (SQL | undefined)[] = [eq(t.organizationId, ctx.organizationId)];
  if (input.status) where.push(eq(t.status, input.status));
  if (input.triggerType) where.push(eq(t.triggerType, input.triggerType));
  if (input.search) {
    const pattern = `%${escapeLike(input.search)}%`;
    where.push(or(ilike(t.name, pattern), ilike(t.description, pattern)));
  }
  const condition = and(...where);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx
      .select({
        id: t.id,
        organizationId: t.organizationId,
        name: t.name,
        description: t.description,
        triggerType: t.triggerType,
        triggerConfig: t.triggerConfig,
        status: t.status,
        version: t.version,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
        // The total rides along as a window count: one scan of the matches instead of two queries.
        total: sql<number>`count(*) over ()`.mapWith(Number),
      })
      .from(t)
      .where(condition)
      .orderBy(desc(t.createdAt), desc(t.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    let total = rows[0]?.total;
    if (total === undefined) {
      // A page past the end has no row to carry the total.
      const [totals] = await tx.select({ total: count() }).from(t).where(condition);
      total = totals?.total ?? 0;
    }
    return { rows: rows.map(presentWorkflowSummary), total };
  });
}
