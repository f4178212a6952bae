import { schema, withTenant } from '@weft/db';
import { count, desc, eq, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import type { PageRequest } from '../pagination';
import { presentCredential } from './present';

/** The organization's credentials, newest first, secrets masked (the ciphertext is not even read). */
export async function listCredentials({ ctx, input }: VerbArgs<PageRequest>) {
  const t = schema.credentials;
  const condition = eq(t.organizationId, ctx.organizationId);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx
      .select({
        id: t.id,
        organizationId: t.organizationId,
        name: t.name,
        type: t.type,
        publicFields: t.publicFields,
        masks: t.masks,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
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
    return { rows: rows.map(presentCredential), total };
  });
}
