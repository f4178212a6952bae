import { z } from 'zod';
import { storedText } from '../text';
import { WebhookEvent } from './events';

/** What a caller may set on a webhook (POST and PUT). The SSRF check of `url` is async: see checkWebhookUrl. */
export const WebhookInput = z.object({
  url: storedText(z.string().min(1).max(2048)),
  events: z
    .array(WebhookEvent)
    .min(1, 'Subscribe to at least one event')
    .max(WebhookEvent.options.length)
    .transform((events) => [...new Set(events)]),
  /** Optional: generated when absent on create, kept when absent on update. */
  secret: z
    .string()
    .min(8, 'A webhook secret needs at least 8 characters')
    .max(256)
    .regex(/^[\x21-\x7e]+$/, 'A webhook secret is printable ASCII without spaces')
    .optional(),
});
export type WebhookInput = z.infer<typeof WebhookInput>;
