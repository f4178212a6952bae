import { schema, withTenant } from '@weft/db';
import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { ServiceContext } from '../context';
import { notFound } from '../errors';
import { type DeliveryStarter, startWebhookDeliveries } from './outbox';

/** The event name of a test delivery: receivers can tell it from real events. */
export const TEST_EVENT = 'webhook.test';

/**
 * "Send test event": one `webhook.test` delivery to this webhook only, signed and retried like any
 * other, so the receiver's signature check and the deliveries log can be tried before real traffic.
 */
export async function sendTestDelivery(ctx: ServiceContext, engine: DeliveryStarter, webhookId: string) {
  const delivery = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [hook] = await tx
      .select({ id: schema.webhooks.id })
      .from(schema.webhooks)
      .where(eq(schema.webhooks.id, webhookId));
    if (!hook) throw notFound('Webhook');
    const id = uuidv7();
    const createdAt = new Date();
    const body = JSON.stringify({
      id,
      event: TEST_EVENT,
      created_at: createdAt.toISOString(),
      data: { message: 'A test delivery from Weft: your endpoint receives and verifies signed events.' },
    });
    await tx.insert(schema.webhookDeliveries).values({
      id,
      organizationId: ctx.organizationId,
      webhookId,
      event: TEST_EVENT,
      dedupKey: `test:${id}`,
      body,
      createdAt,
    });
    return { id, event: TEST_EVENT, created_at: createdAt.toISOString() };
  });
  await startWebhookDeliveries(engine, ctx.organizationId, [delivery.id]);
  return delivery;
}
