import { Cron } from 'croner';
import { z } from 'zod';
import { MASKED_SECRET_PATTERN, refuseSecretHeaders } from './secret-headers';

export const TRIGGER_TYPES = ['event', 'manual', 'schedule', 'polling', 'webhook', 'chat', 'tool'] as const;
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

/**
 * The cron syntax both our checker (croner) and Temporal's schedule parser read the same way: five
 * fields of numbers, `*`, lists, ranges, steps and English month/day names. Extensions one side
 * lacks (`L`, `W`, `#`, `?`, seconds, years, `@daily`) are refused rather than half-supported.
 */
const CRON_TOKEN =
  /^(\*|[0-9]{1,2}|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)$/i;
const cronFieldIsPlain = (field: string) => field.split(/[,/-]/).every((token) => CRON_TOKEN.test(token));
const CRON_FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];

/**
 * How Weft reads a cron expression. Day-of-month and day-of-week are ANDed (`0 0 1 * 1` = the 1st
 * when it is a Monday), as Temporal's schedules match every field, unlike Vixie cron's OR.
 */
function parseCron(cron: string, timezone?: string): Cron {
  return new Cron(cron, { mode: '5-part', domAndDow: true, paused: true, timezone });
}

/** Room for any sensible list of values; a cron expression longer than this is a mistake or an attack. */
const MAX_CRON_LENGTH = 256;

export const CronExpression = z
  .string()
  .trim()
  .max(MAX_CRON_LENGTH)
  .superRefine((value, ctx) => {
    const fields = value.split(/\s+/);
    if (fields.length !== 5) {
      ctx.addIssue({
        code: 'custom',
        message: 'must have 5 fields: minute hour day-of-month month day-of-week',
      });
      return;
    }
    const odd = fields.findIndex((f) => !cronFieldIsPlain(f));
    if (odd !== -1) {
      ctx.addIssue({
        code: 'custom',
        message: `the ${CRON_FIELD_NAMES[odd]} field may only hold numbers, names, *, lists, ranges and steps`,
      });
      return;
    }
    try {
      // A valid pattern may still match no date at all (`0 0 30 2 *`): its schedule would never fire.
      if (parseCron(fields.join(' ')).nextRun() === null) {
        ctx.addIssue({ code: 'custom', message: 'never fires: no date matches every field' });
      }
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `invalid cron expression: ${error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)}`,
      });
    }
  })
  .transform((value) => value.split(/\s+/).join(' '));

/** An IANA time zone name, stored in its canonical spelling (`america/new_york` → `America/New_York`). */
export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .transform((value, ctx) => {
    try {
      const zone = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
      // Node 24's Intl also takes UTC offsets (`+05:00`, ECMA-402 2024); a Temporal Schedule takes
      // IANA names only, and an offset ignores daylight saving anyway.
      if (!/^[+-]/.test(zone)) return zone;
    } catch {}
    ctx.addIssue({ code: 'custom', message: 'must be an IANA time zone such as Europe/Berlin or UTC' });
    return z.NEVER;
  });

/**
 * The next `count` fire times of a cron expression in a time zone, strictly after `after`. The same
 * reading as the Temporal Schedule that runs it (tested against the server), so the API can show it.
 */
export function nextCronFireTimes(cron: string, timezone: string, after: Date, count: number): Date[] {
  return parseCron(cron, timezone).nextRuns(count, after);
}

/** A tool workflow's name (DESIGN §14): safe for MCP and for both providers' tool names. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
export const ToolName = z
  .string()
  .regex(
    TOOL_NAME_PATTERN,
    'must start with a lower-case letter, then up to 63 lower-case letters, digits or _',
  );

const HeaderMap = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'invalid header name'),
  z.string().refine((v) => !/[\r\n\0]/.test(v), 'header values cannot contain CR, LF or NUL'),
);

export const TriggerConfigByType = {
  event: z.object({ event: EventPattern }),
  manual: z.object({}),
  schedule: z.object({ cron: CronExpression, timezone: TimeZone.default('UTC') }),
  polling: z
    .object({
      url: z
        .string()
        .min(1)
        .max(2048)
        .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s) URL')
        // The outbound client refuses credentials in a URL at every poll: refuse them at save too.
        .refine(
          (v) => !URL.canParse(v) || (new URL(v).username === '' && new URL(v).password === ''),
          'must not contain a user name or password (use credential_id)',
        ),
      method: z.enum(['GET', 'POST']).default('GET'),
      headers: HeaderMap.superRefine(refuseSecretHeaders).optional(),
      /** A credential of type http_bearer, http_header or http_basic: how the poll authenticates. */
      credential_id: z.uuid().optional(),
      interval_minutes: z.number().int().min(1).max(10080).optional(),
      cron: CronExpression.optional(),
      /** Zone of `cron` (ignored with interval_minutes). */
      timezone: TimeZone.default('UTC'),
      /** Dot path to the item list in the JSON answer (`data.items`); absent = the answer itself. */
      items_path: z.string().max(256).optional(),
      /** Dot path inside an item to its unique key (`id`); absent = a hash of the whole item. */
      dedup_key: z.string().max(256).optional(),
      /** The first poll stores the items already there without running them (Zapier's behaviour). */
      baseline: z.boolean().default(true),
    })
    .refine((c) => (c.interval_minutes === undefined) !== (c.cron === undefined), {
      message: 'give exactly one of interval_minutes or cron',
      path: ['interval_minutes'],
    }),
  webhook: z.object({
    /** Answered masked; a masked value sent back keeps the stored secret. */
    secret: z
      .string()
      .max(256)
      .refine((v) => MASKED_SECRET_PATTERN.test(v) || v.length >= 16, 'must be at least 16 characters')
      .optional(),
  }),
  chat: z.object({}),
  tool: z.object({
    /** What callers (agents, MCP clients, action.workflow.execute) call it by. */
    name: ToolName,
    /** What it does, for the model choosing among tools. */
    description: z.string().trim().max(2000).default(''),
    /**
     * The JSON Schema of the call's arguments (the execution's `trigger`); its validity as a JSON
     * Schema is checked by the domain at save (a validator compiles code: not here, in workflow code).
     */
    input_schema: z
      .record(z.string(), z.unknown())
      .refine((s) => s.type === 'object', 'must be a JSON Schema with "type": "object" (MCP requires it)')
      .default({ type: 'object', properties: {} }),
  }),
} satisfies Record<TriggerType, z.ZodType>;
export type ScheduleTriggerConfig = z.output<(typeof TriggerConfigByType)['schedule']>;
export type PollingTriggerConfig = z.output<(typeof TriggerConfigByType)['polling']>;
export type ToolTriggerConfig = z.output<(typeof TriggerConfigByType)['tool']>;
