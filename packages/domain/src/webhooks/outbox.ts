import { schema, type Tx } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { ExecutionEngine } from '../executions/execution-engine';
import type { WebhookEvent } from './events';

/** Starts delivery workflows; only this part of the engine is needed here. */
export type DeliveryStarter = Pick<ExecutionEngine, 'startDeliveries'>;

/**
 * The transactional outbox of outbound webhooks: one `webhook_deliveries` row per webhook of the
 * organization subscribed to `event`, written in the caller's transaction so that the change and
 * the notification commit (or roll back) together. `dedupKey` makes a repeated report (a retried
 * activity, a replayed save) harmless: per webhook, one key is one delivery.
 *
 * `data` is computed only when someone is subscribed. The stored body is the exact text that is
 * signed and sent on every attempt. Returns the ids of the deliveries created now.
 */
export async function recordWebhookEvent(
  tx: Tx,
  organizationId: string,
  event: { name: WebhookEvent; dedupKey: string; data: () => Promise<Record<string, unknown>> },
): Promise<string[]> {
  const w = schema.webhooks;
  const d = schema.webhookDeliveries;
  // KEY SHARE: a webhook being deleted meanwhile is waited for and then skipped, instead of its
  // delivery row failing the foreign key (and the caller's change) once the delete commits.
  const subscribed = await tx
    .select({ id: w.id })
    .from(w)
    .where(
      and(eq(w.organizationId, organizationId), sql`${w.events} @> ${JSON.stringify([event.name])}::jsonb`),
    )
    .for('key share');
  if (subscribed.length === 0) return [];
  const data = await event.data();
  const createdAt = new Date();
  const rows = subscribed.map(({ id: webhookId }) => {
    const id = uuidv7();
    const body = JSON.stringify({ id, event: event.name, created_at: createdAt.toISOString(), data });
    return { id, organizationId, webhookId, event: event.name, dedupKey: event.dedupKey, body, createdAt };
  });
  const inserted = await tx
    .insert(d)
    .values(rows)
    .onConflictDoNothing({ target: [d.webhookId, d.dedupKey] })
    .returning({ id: d.id });
  return inserted.map((row) => row.id);
}

/**
 * Starts the delivery workflows of rows just committed. A failure here is only logged: the rows
 * stay `pending` and the sweeper (sweeper.ts) starts them within a minute or two, so the change
 * that produced them never fails because Temporal was briefly unreachable.
 */
export async function startWebhookDeliveries(
  engine: DeliveryStarter | undefined,
  organizationId: string,
  deliveryIds: readonly string[],
): Promise<void> {
  if (deliveryIds.length === 0 || !engine) return;
  try {
    await engine.startDeliveries(organizationId, [...deliveryIds]);
  } catch (error) {
    console.warn(`[webhooks] ${deliveryIds.length} deliveries left to the sweeper:`, error);
  }
}
