import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody } from '../error-handler';

/**
 * 413 for bodies over `maxBytes`, declared or streamed. GET and HEAD skip the check: requests of
 * these methods carry no body (the Fetch API refuses one, and the Node adapter never reads one),
 * and Hono's bodyLimit asks for `c.req.raw.body`, which makes the Node adapter build a full Request
 * object for every GET.
 */
export function limitBodySize(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(errorBody('payload_too_large', `The request body exceeds ${maxBytes} bytes.`), 413),
  });
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
}
