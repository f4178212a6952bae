export type OutboundHttpErrorCode =
  | 'ssrf_blocked'
  | 'invalid_url'
  | 'timeout'
  | 'response_too_large'
  | 'network_error'
  | 'too_many_redirects';

/**
 * The only error the outbound client throws for a refused or failed request (besides the reason of a
 * caller's own AbortSignal). Codes are public API: callers map them to step errors and retry policy.
 */
export class OutboundHttpError extends Error {
  override name = 'OutboundHttpError';
  constructor(
    readonly code: OutboundHttpErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
