import { z } from 'zod';

/** Events a webhook can subscribe to (DESIGN §8). Public API: names never change. */
export const WEBHOOK_EVENTS = [
  'execution.completed',
  'execution.failed',
  'execution.partial',
  'execution.waiting',
  'workflow.created',
  'workflow.updated',
  'workflow.deleted',
] as const;

export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
