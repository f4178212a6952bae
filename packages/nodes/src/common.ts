import { z } from 'zod';
import { durationToMs } from './shared/duration';

/** A config string that may contain `{{ ... }}` expressions. */
export const Template = z.string().max(65_536);

/** Durations such as `90s`, `5m`, `2h`, `1d`; at most a year (an execution is not a calendar). */
const DURATION_PATTERN = /^\d{1,9}(ms|s|m|h|d)$/;
export const Duration = z
  .string()
  .regex(DURATION_PATTERN, 'must look like 90s, 5m, 2h or 1d')
  .refine(
    (v) => !DURATION_PATTERN.test(v) || durationToMs(v) <= 365 * 86_400_000,
    'must be at most 365 days',
  );

export const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'invalid header name');
/** Header values are user input forwarded to other servers: CR/LF would allow header injection. */
export const HeaderValue = Template.refine(
  (v) => !/[\r\n\0]/.test(v),
  'header values cannot contain CR, LF or NUL',
);

export const E164OrTemplate = Template.min(1);
