import { randomUUID } from 'node:crypto';
import { callerRefusal, isDatabaseUnavailable, isDataException, postgresErrorCode } from '@weft/db';
import { AppError, type ErrorCode, SecretBoxError, secretKeyNotHeld } from '@weft/domain';
import { currentLogContext, getLogger } from '@weft/telemetry';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * The error envelope of the spec. This is the only place that builds it. `request_id` is the id
 * of the request being answered (X-Request-Id, middleware/request-telemetry.ts), so a user who
 * quotes an error lets an operator find its log lines.
 */
export function errorBody(code: ErrorCode, message: string, fields: Record<string, string[]> = {}) {
  // Every request runs inside its log context; outside one (a direct call) a fresh id still keeps
  // the envelope's shape.
  const requestId = currentLogContext()?.request_id ?? randomUUID();
  return { error: { code, message, fields, request_id: requestId } };
}

export function handleError(thrown: unknown, c: Context, log: (error: unknown) => void) {
  // PostgreSQL refused a cached API key during the request (packages/db/src/caller.ts).
  const refused = callerRefusal(thrown);
  const keyNotHeld = thrown instanceof SecretBoxError && thrown.keyNotHeld;
  // Its message names key ids only (never the secret): the operator needs them to find the key.
  if (keyNotHeld)
    getLogger('api').warn({ reason: thrown.message }, 'a stored secret needs a key not in the ring');
  const error = refused
    ? new AppError(refused.reason === 'revoked' ? 'unauthenticated' : 'forbidden', refused.message)
    : keyNotHeld
      ? secretKeyNotHeld()
      : thrown;
  if (error instanceof AppError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(errorBody(error.code, error.message, error.fields), error.status as ContentfulStatusCode);
  }
  if (error instanceof HTTPException) {
    // Raised by Hono itself, e.g. its validator on malformed JSON: a client error.
    const status = error.status >= 500 ? 500 : error.status === 400 ? 422 : error.status;
    const code: ErrorCode =
      status === 413
        ? 'payload_too_large'
        : status === 404
          ? 'not_found'
          : status >= 500
            ? 'internal_error'
            : 'validation_error';
    return c.json(
      errorBody(code, status >= 500 ? 'Internal server error.' : error.message),
      status as ContentfulStatusCode,
    );
  }
  if (isDataException(error)) {
    // Input that passed validation but not PostgreSQL is a gap in validation: say which check failed.
    // The code names the check (22P05 untranslatable character, 22003 out of range…); the
    // message is left out: a failed query's text carries its parameters.
    getLogger('api').warn({ pg_code: postgresErrorCode(error) }, 'input refused by the database');
    return c.json(errorBody('validation_error', 'The given data could not be stored.'), 422);
  }
  if (isDatabaseUnavailable(error)) {
    // The database is down or restarting (weft chaos postgres-stop): a retryable 503, not a 500.
    c.header('Retry-After', '5');
    return c.json(errorBody('service_unavailable', 'The database is unavailable; retry shortly.'), 503);
  }
  log(error);
  // Never a stack trace or SQL text in a response.
  return c.json(errorBody('internal_error', 'Internal server error.'), 500);
}
