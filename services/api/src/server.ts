import { createServer, type RequestListener, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { applyWebSecurityHeaders } from './web-security-headers';

const API_PATHS = /^\/(api(\/|$)|healthz$|readyz$|metrics$)/;

/**
 * One origin for everything: a plain Node HTTP server sends `/api*`, `/healthz`, `/readyz` and
 * `/metrics` to the Hono app and every other path to the web app (adapter-node's handler from
 * web/build).
 */
export function createHttpServer(
  app: Hono,
  web?: RequestListener,
  /** Sources beyond the origin the web app's pages may load (the captcha's): see web-security-headers.ts. */
  cspSources: readonly string[] = [],
): Server {
  const api = getRequestListener(app.fetch);
  return createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (API_PATHS.test(pathname)) {
      void api(req, res);
      return;
    }
    if (web) {
      applyWebSecurityHeaders(res, cspSources);
      web(req, res);
      return;
    }
    res.writeHead(pathname === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><title>Weft</title><h1>Weft</h1><p>The web app is not built: run <code>./weft up</code>. The API is at <a href="/api/v1/docs">/api/v1/docs</a>.</p>',
    );
  });
}
