import { schema, withTenant } from '@weft/db';
import { count, desc, eq, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import type { PageRequest } from '../pagination';
import { presentWebhook } from './present';

export async function listWebhooks({ ctx, input }: VerbArgs<PageRequest>) {
  const w = schema.webhooks;
  const condition = eq(w.organizationId, ctx.organizationId);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx
      .select({
        id: w.id,
        organizationId: w.organizationId,
        url: w.url,
        events: w.events,
        createdAt: w.createdAt,
        updatedAt: w.updatedAt,
        total: sql<number>`count(*) over ()`.mapWith(Number),
      })
      .from(w)
      .where(condition)
      .orderBy(desc(w.createdAt), desc(w.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    let total = rows[0]?.total;
    if (total === undefined) {
      // A page past the end has no row to carry the total.
      const [totals] = await tx.select({ total: count() }).from(w).where(condition);
      total = totals?.total ?? 0;
    }
    return { rows: rows.map(presentWebhook), total };
  });
}
