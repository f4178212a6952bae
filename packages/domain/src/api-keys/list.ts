import { schema, withTenant } from '@weft/db';
import { count, desc, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import type { PageRequest } from '../pagination';
import { presentApiKey } from './present';

export async function listApiKeys({ ctx, input }: VerbArgs<PageRequest>) {
  const t = schema.apiKeys;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const where = eq(t.organizationId, ctx.organizationId);
    const rows = await tx
      .select()
      .from(t)
      .where(where)
      .orderBy(desc(t.createdAt), desc(t.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    const [totals] = await tx.select({ total: count() }).from(t).where(where);
    return { rows: rows.map(presentApiKey), total: totals?.total ?? 0 };
  });
}
