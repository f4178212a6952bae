import { schema, withTenant } from '@weft/db';
import { eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { assertWebhookUrlAllowed } from './create';
import type { WebhookDeps } from './deps';
import { findWebhookRow } from './get';
import { presentWebhook } from './present';
import type { WebhookInput } from './webhook-input';

/** PUT semantics for url and events; the secret is replaced only when one is given. */
export async function updateWebhook({
  ctx,
  input,
  deps,
}: VerbArgs<{ id: string; webhook: WebhookInput }> & { deps: WebhookDeps }) {
  if (!isUuid(input.id)) throw notFound('Webhook');
  const next = input.webhook;
  await assertWebhookUrlAllowed(next.url, deps);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const existing = await findWebhookRow(tx, ctx.organizationId, input.id, true);
    const [row] = await tx
      .update(schema.webhooks)
      .set({
        url: next.url,
        events: next.events,
        ...(next.secret === undefined ? {} : { secretCiphertext: deps.secrets.encrypt(next.secret) }),
      })
      .where(eq(schema.webhooks.id, existing.id))
      .returning();
    if (!row) throw notFound('Webhook');
    const webhook = presentWebhook(row);
    // The secret itself never reaches the audit trail; that it changed does.
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'webhook',
      entityId: row.id,
      oldValues: { ...presentWebhook(existing), secret_replaced: false },
      newValues: { ...webhook, secret_replaced: next.secret !== undefined },
    });
    return webhook;
  });
}
