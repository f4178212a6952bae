import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** The API's error envelope (DESIGN §7). */
export interface ApiError {
  code: string;
  message: string;
  fields: Record<string, string[]>;
}

let csrfToken = '';

/** Set from GET /me or a sign-in answer; sent on every state-changing call. */
export function setCsrfToken(token: string) {
  csrfToken = token;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const csrf: Middleware = {
  onRequest({ request }) {
    if (MUTATING.has(request.method) && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
};

/** The one way the web app talks to the server: the typed /api/v1 client, session cookie included. */
export const api = createClient<paths>({ baseUrl: '/api/v1', credentials: 'same-origin' });
api.use(csrf);

/** An error envelope from a failed call, or a generic one when the body is not the envelope. */
export function apiError(error: unknown, status?: number): ApiError {
  const envelope = (error as { error?: Partial<ApiError> } | undefined)?.error;
  if (envelope?.message) {
    return { code: envelope.code ?? 'error', message: envelope.message, fields: envelope.fields ?? {} };
  }
  return {
    code: 'network_error',
    message: status ? `The server answered ${status}.` : 'The server could not be reached.',
    fields: {},
  };
}

/**
 * Unwraps an openapi-fetch result: the data, or an ApiFailure carrying the envelope. Pages catch it
 * and show `message` and each `fields` entry next to its input.
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ApiError,
  ) {
    super(envelope.message);
  }
}

export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch {
    throw new ApiFailure(0, apiError(undefined));
  }
  if (result.error !== undefined || !result.response.ok) {
    if (result.response.status === 401 && typeof window !== 'undefined') onUnauthenticated?.();
    throw new ApiFailure(result.response.status, apiError(result.error, result.response.status));
  }
  return result.data as T;
}

let onUnauthenticated: (() => void) | undefined;
/** What to do when a call finds the session gone (the layout sends the user to /login). */
export function whenUnauthenticated(handler: () => void) {
  onUnauthenticated = handler;
}
