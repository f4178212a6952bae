/** The closed set of error codes. Public API: a client may branch on them, so never rename one. */
export const ERROR_STATUS = {
  validation_error: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 422,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export type FieldErrors = Record<string, string[]>;

/** Thrown by service verbs and middleware; turned into the error envelope in exactly one place. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields: FieldErrors = {},
    /** Overrides the code's usual status (e.g. idempotency_conflict is 409 for a request still running). */
    readonly status: number = ERROR_STATUS[code],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A stored secret the request needs was sealed with an APP_KEY this server does not hold (a
 * SecretBoxError with keyNotHeld): the caller can do nothing, an operator can (add the key to
 * APP_KEYS_PREVIOUS), so it is a 503 naming the cause, never a 500 nor anything of the secret.
 */
export const secretKeyNotHeld = () =>
  new AppError(
    'service_unavailable',
    'A stored secret this request needs was sealed with an APP_KEY this server does not hold ' +
      '(neither APP_KEY nor in APP_KEYS_PREVIOUS); an operator must add that key to APP_KEYS_PREVIOUS ' +
      '(docs/key-custody.md).',
    {},
    ERROR_STATUS.service_unavailable,
    // Every 503 of the API carries one (the OpenAPI contract): retrying helps once the key is added.
    { 'Retry-After': '60' },
  );

export const notFound = (entity: string) => new AppError('not_found', `${entity} not found`);

export function validationError(fields: FieldErrors, message = 'The given data was invalid.'): AppError {
  return new AppError('validation_error', message, fields);
}

/** What zod reports about a value, enough to say it in words (zod 4's issue fields). */
export interface ValidationIssue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  expected?: string;
  values?: readonly unknown[];
  keys?: readonly string[];
  format?: string;
}

const ZOD_DEFAULT =
  /^(Too small|Too big|Invalid input|Invalid option|Invalid string|Invalid [a-zA-Z]+ ?[a-zA-Z]*$|Unrecognized key)/;

/**
 * A person reads the 422's field messages: zod's own texts ("Too small: expected string to have
 * >=1 characters") are said in words; messages a schema wrote itself are kept as they are.
 */
export function humanMessage(issue: ValidationIssue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  const n = (v: number | bigint | undefined) => Number(v ?? 0);
  const unit = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string')
        return n(issue.minimum) <= 1
          ? 'is required'
          : `must be at least ${unit(n(issue.minimum), 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must have at least ${unit(n(issue.minimum), 'item')}`;
      return `must be at least ${n(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${unit(n(issue.maximum), 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must have at most ${unit(n(issue.maximum), 'item')}`;
      return `must be at most ${n(issue.maximum)}`;
    case 'invalid_type':
      return / received undefined$/.test(issue.message)
        ? 'is required'
        : `must be ${issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected ?? 'value of the right type'}`}`;
    case 'invalid_value':
      return issue.values?.length
        ? `must be one of: ${issue.values.map((v) => String(v)).join(', ')}`
        : 'is not one of the allowed values';
    case 'invalid_format':
      return issue.format === 'regex'
        ? 'is not in the expected format'
        : `must be a valid ${issue.format ?? 'value'}`;
    case 'unrecognized_keys':
      return `has unknown field${(issue.keys?.length ?? 0) === 1 ? '' : 's'}: ${(issue.keys ?? []).join(', ')}`;
    default:
      return issue.message;
  }
}

/** Groups issues by dotted path (`nodes.2.config.url`), the shape of the envelope's `fields`. */
export function fieldsFromIssues(issues: readonly ValidationIssue[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || '_';
    const list = fields[key] ?? [];
    list.push(humanMessage(issue));
    fields[key] = list;
  }
  return fields;
}
