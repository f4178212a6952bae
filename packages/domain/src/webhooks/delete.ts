import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWebhook } from './present';

/** Deletes the webhook and its delivery records; deliveries still retrying find nothing and stop. */
export async function deleteWebhook({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('Webhook');
  const w = schema.webhooks;
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .delete(w)
      .where(and(eq(w.id, input.id), eq(w.organizationId, ctx.organizationId)))
      .returning();
    if (!row) throw notFound('Webhook');
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'webhook',
      entityId: row.id,
      oldValues: presentWebhook(row),
    });
  });
}
