import type { schema } from '@weft/db';

type WebhookRow = typeof schema.webhooks.$inferSelect;
type DeliveryRow = typeof schema.webhookDeliveries.$inferSelect;

/** The secret is never part of this: only the create response carries it, once. */
export function presentWebhook(row: Omit<WebhookRow, 'secretCiphertext'>) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type WebhookResource = ReturnType<typeof presentWebhook>;

export function presentDelivery(row: Omit<DeliveryRow, 'body' | 'dedupKey'>) {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event: row.event,
    status: row.status,
    attempt_count: row.attemptCount,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    next_retry_at: row.nextRetryAt?.toISOString() ?? null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
