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

/** Groups issues by dotted path (`nodes.2.config.url`), the shape of the envelope's `fields`. */
export function fieldsFromIssues(issues: { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || '_';
    const list = fields[key] ?? [];
    list.push(issue.message);
    fields[key] = list;
  }
  return fields;
}
