import { z } from 'zod';

export const TRIGGER_TYPES = ['event', 'manual', 'schedule', 'polling', 'webhook', 'chat'] as const;
export const TriggerType = z.enum(TRIGGER_TYPES);
export type TriggerType = z.infer<typeof TriggerType>;

/** Accepts `trigger.polling` as well as `polling` (the spec uses both spellings). */
export function normalizeTriggerType(value: unknown): unknown {
  return typeof value === 'string' && value.startsWith('trigger.') ? value.slice('trigger.'.length) : value;
}

/** `category.action`, or `category.*` to match a whole category. */
export const EventPattern = z
  .string()
  .max(100)
  .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?$/, 'must look like category.action or category.*');
export const EventName = z
  .string()
  .max(100)
  .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/, 'must look like category.action (lower case, dot separated)');

const CronExpression = z
  .string()
  .trim()
  .refine(
    (v) => v.split(/\s+/).length === 5,
    'must have 5 fields: minute hour day-of-month month day-of-week',
  );

const HeaderMap = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'invalid header name'),
  z.string().refine((v) => !/[\r\n\0]/.test(v), 'header values cannot contain CR, LF or NUL'),
);

export const TriggerConfigByType = {
  event: z.object({ event: EventPattern }),
  manual: z.object({}),
  schedule: z.object({ cron: CronExpression, timezone: z.string().min(1).max(64).default('UTC') }),
  polling: z
    .object({
      url: z.string().min(1).max(2048),
      method: z.enum(['GET', 'POST']).default('GET'),
      headers: HeaderMap.optional(),
      interval_minutes: z.number().int().min(1).max(10080).optional(),
      cron: CronExpression.optional(),
      items_path: z.string().max(256).optional(),
      dedup_key: z.string().max(256).optional(),
      baseline: z.boolean().default(true),
    })
    .refine((c) => (c.interval_minutes === undefined) !== (c.cron === undefined), {
      message: 'give exactly one of interval_minutes or cron',
      path: ['interval_minutes'],
    }),
  webhook: z.object({ secret: z.string().min(16).max(256).optional() }),
  chat: z.object({}),
} satisfies Record<TriggerType, z.ZodType>;
