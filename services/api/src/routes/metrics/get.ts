import { mayReadMetrics, renderMetrics } from '@weft/telemetry';
import type { Hono } from 'hono';
import { errorBody } from '../../error-handler';
import { cameThroughProxy, clientIp } from '../../middleware/client-ip';

export interface MetricsRouteDeps {
  /**
   * METRICS_TOKEN: lets callers on other machines in as a bearer token; unset = direct local callers
   * only (a loopback socket, no X-Forwarded-For, Forwarded or X-Real-IP).
   */
  token?: string;
  /**
   * TRUST_PROXY_HOPS. Behind a proxy every request arrives from the proxy's (often local) address,
   * so a local socket proves nothing: only the token opens /metrics then.
   */
  trustedProxyHops: number;
}

/**
 * GET /metrics: the process's Prometheus metrics (HTTP, executions, steps, deliveries, Node process;
 * worker ones too when the worker runs in this process). Outside /api/v1: it is for operators'
 * scrapers, not API clients, and takes no API key.
 */
export function registerMetrics(app: Hono, deps: MetricsRouteDeps) {
  app.get('/metrics', async (c) => {
    // Like the codec endpoint: a loopback socket counts only for a direct request, never a forwarded one.
    const direct = deps.trustedProxyHops === 0 && !cameThroughProxy(c);
    const address = direct ? clientIp(c, 0) : undefined;
    if (!mayReadMetrics({ address, authorization: c.req.header('authorization') }, deps.token)) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json(
        errorBody(
          'unauthenticated',
          'Metrics need METRICS_TOKEN as a bearer token, or a caller on this machine.',
        ),
        401,
      );
    }
    const { contentType, body } = await renderMetrics();
    return c.body(body, 200, { 'Content-Type': contentType });
  });
}
