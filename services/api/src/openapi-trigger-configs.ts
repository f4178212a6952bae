import { HTTP_URL_PATTERN } from '@weft/domain';
import { MASKED_SECRET_PATTERN, TRIGGER_TYPES, TriggerConfigByType } from '@weft/graph';
import { z } from 'zod';

type Json = Record<string, unknown>;

/**
 * `trigger_config` depends on `trigger_type`: one `oneOf` branch per type pairs the type's two
 * spellings with its config's schema (from the same zod schemas the server validates with). Rules
 * JSON Schema can say are added by hand below; what it cannot (a cron expression that never fires,
 * a time zone unknown to this Node) stays in the server and in the field's description.
 */
const anyCase = (word: string) => [...word].map((ch) => `[${ch.toUpperCase()}${ch.toLowerCase()}]`).join('');
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/** One cron field: `*` or values (ranges allowed), an optional step, comma-separated. */
function cronField(value: string): string {
  const item = `(\\*|${value}(-${value})?)(/[1-9][0-9]?)?`;
  return `${item}(,${item})*`;
}

/** Five fields in range, as the server's cron reader (croner, `mode: '5-part'`) takes them. */
const CRON_PATTERN = `^\\s*${[
  '([0-5]?[0-9])',
  '([01]?[0-9]|2[0-3])',
  '(0?[1-9]|[12][0-9]|3[01])',
  `(0?[1-9]|1[0-2]|${MONTHS.map(anyCase).join('|')})`,
  `([0-7]|${DAYS.map(anyCase).join('|')})`,
]
  .map(cronField)
  // The server trims and splits on any run of white space.
  .join('\\s+')}\\s*$`;

const TIME_ZONE_REF = { $ref: '#/components/schemas/TimeZone' };

/** IANA names this Node knows (the server canonicalizes them, e.g. `america/new_york`): one component. */
export const TIME_ZONE_SCHEMA = {
  type: 'string',
  description: 'An IANA time zone name',
  enum: [...new Set(['UTC', ...Intl.supportedValuesOf('timeZone')])],
};

/** The JSON Schema of one trigger type's `trigger_config` (also the polling preview's body). */
export function triggerConfigSchema(type: (typeof TRIGGER_TYPES)[number]): Json {
  const config = z.toJSONSchema(TriggerConfigByType[type], { io: 'input', unrepresentable: 'any' }) as Json;
  delete config.$schema;
  const properties = (config.properties ?? {}) as Record<string, Json>;
  if (properties.cron) {
    properties.cron.pattern = CRON_PATTERN;
    properties.cron.description =
      'Five fields: minute hour day-of-month month day-of-week (values, *, ranges, steps, lists, English names). A pattern no date matches (`0 0 30 2 *`) is refused.';
  }
  if (properties.timezone) {
    const { type: _, minLength: __, maxLength: ___, ...rest } = properties.timezone;
    properties.timezone = { ...rest, $ref: TIME_ZONE_REF.$ref };
  }
  if (type === 'polling') {
    // .refine: exactly one of the two ways to time a poll.
    config.oneOf = [
      { required: ['interval_minutes'], not: { required: ['cron'] } },
      { required: ['cron'], not: { required: ['interval_minutes'] } },
    ];
    if (properties.url) {
      properties.url.pattern = HTTP_URL_PATTERN;
    }
  }
  if (type === 'webhook' && properties.secret) {
    // .refine: at least 16 characters, or the masked value answered back (keeps the stored secret).
    properties.secret.anyOf = [{ minLength: 16 }, { pattern: MASKED_SECRET_PATTERN.source }];
  }
  return config;
}

function branch(type: (typeof TRIGGER_TYPES)[number]): Json {
  const config = triggerConfigSchema(type);
  const required = Array.isArray(config.required) && config.required.length > 0;
  return {
    properties: { trigger_type: { enum: [type, `trigger.${type}`] }, trigger_config: config },
    // A type whose config has required fields cannot take the `{}` default.
    ...(required ? { required: ['trigger_config'] } : {}),
  };
}

/** Adds the branches to a workflow body (`trigger_type` and `trigger_config`), in place. */
export function addTriggerConfigBranches(schema: Json): void {
  schema.oneOf = TRIGGER_TYPES.map(branch);
}
