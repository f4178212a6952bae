import { z } from '@hono/zod-openapi';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS, type WebhookDeps } from '@weft/domain';
import type { Context } from 'hono';
import type { AppEnv } from '../../app-env';

const fields = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).openapi({ description: `Subscribed events: ${WEBHOOK_EVENTS.join(', ')}` }),
  created_at: z.string(),
  updated_at: z.string(),
};

export const Webhook = z.object(fields).openapi('Webhook');

export const CreatedWebhook = z
  .object({
    ...fields,
    secret: z.string().openapi({
      description: 'The signing secret. Shown only in this response: store it now.',
    }),
  })
  .openapi('CreatedWebhook');

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    started_at: z.string(),
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .openapi('WebhookDeliveryAttempt');

export const Delivery = z
  .object({
    id: z.string().openapi({ description: 'Sent as X-Webhook-Id / webhook-id on every attempt' }),
    webhook_id: z.string(),
    event: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    attempts: z.array(DeliveryAttempt),
    last_status_code: z.number().int().nullable(),
    next_retry_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('WebhookDelivery');

/** What the webhook verbs need from the request's context: the secret box and the SSRF allowlist. */
export function webhookDeps(c: Context<AppEnv>): WebhookDeps {
  return { secrets: c.get('secrets'), ssrfAllowlist: c.get('ssrfAllowlist') };
}
