import { randomUUID } from 'node:crypto';
import { type Logger, metrics, withLogContext } from '@weft/telemetry';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * A client's own X-Request-Id is kept when it is short and made of characters that cannot forge a
 * log line or a header (a UUID, a ULID, a trace id); anything else is replaced by a fresh UUID.
 */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The id of a request: the client's X-Request-Id when acceptable, else a new UUID. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && ACCEPTED_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The route pattern a request matched (`/api/v1/workflows/:id`), never its raw path: metric labels
 * and log fields stay a closed set however many ids are requested. Middleware patterns (`*`) do
 * not name a route; a request that matched no route is `unmatched`.
 */
export function routePatternOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]?.path;
    if (path && !path.includes('*')) return path;
  }
  return 'unmatched';
}

/** The organization a request was authenticated for, when it was (set by `authenticate`). */
function organizationOf(c: Context): string | undefined {
  const ctx = (c.get as (key: string) => unknown)('ctx') as { organizationId?: string } | undefined;
  return ctx?.organizationId || undefined;
}

/**
 * The first middleware of the app: gives the request its id (X-Request-Id on the response, in the
 * error envelope and on every line logged while it runs), counts it in the HTTP metrics and writes
 * one access-log line. The line holds method, route pattern, status, duration, request id and
 * organization: never the query string, headers, cookies or body, where keys and secrets travel.
 */
export function requestTelemetry(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header('x-request-id'));
    await withLogContext({ request_id: requestId }, () => next());
    try {
      c.res.headers.set('X-Request-Id', requestId);
    } catch {
      // Some responses (Response.redirect) have immutable headers: answer a copy instead.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('X-Request-Id', requestId);
    }

    const status = c.res.status;
    const route = routePatternOf(c);
    const seconds = (performance.now() - started) / 1000;
    const labels = { method: c.req.method, route, status: String(status) };
    metrics.httpRequests.inc(labels);
    metrics.httpRequestDuration.observe(labels, seconds);
    const orgId = organizationOf(c);
    logger[status >= 500 ? 'error' : 'info'](
      {
        method: c.req.method,
        route,
        status,
        duration_ms: Math.round(seconds * 1_000_000) / 1000,
        request_id: requestId,
        ...(orgId ? { org_id: orgId } : {}),
      },
      'request',
    );
  };
}
