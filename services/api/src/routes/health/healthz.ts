import type { Hono } from 'hono';

/** Liveness: the process answers. No dependency is checked. */
export function registerHealthz(app: Hono) {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
}
