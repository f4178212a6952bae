import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env';
import { completeOpenApiDocument } from '../../openapi-contract';

const require = createRequire(import.meta.url);
const swaggerDist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * GET /api/v1/openapi.json (OpenAPI 3.1, generated from the route schemas) and an interactive
 * reference at /api/v1/docs, served from the local swagger-ui-dist package (no CDN needed).
 */
export function registerDocs(app: OpenAPIHono<AppEnv>, appUrl: string) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer' });
  // The web app: the session cookie, plus X-CSRF-Token (from GET /me) on state-changing requests
  // (openapi-contract.ts adds `Csrf` beside `Session` on every write).
  app.openAPIRegistry.registerComponent('securitySchemes', 'Session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'weft_session',
    description: "The web app's sign-in session (POST /auth/login sets it); not for API clients.",
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'Csrf', {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: "The session's CSRF token (from sign-in or GET /me), on every write made with a session.",
  });
  const config = {
    openapi: '3.1.0',
    info: {
      title: 'Weft API',
      version: '1.0.0',
      description:
        'REST API v1 of Weft. Authenticate with an API key, sent once: in X-Api-Key or as Authorization: Bearer. ' +
        'Each operation lists its schemes as alternatives; a client sends one of them, not all.',
    },
    servers: [{ url: `${appUrl.replace(/\/$/, '')}/api/v1` }],
  };
  // Built on first request (every route is registered by then) and completed with the rules the
  // shared middleware enforces (openapi-contract.ts).
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= completeOpenApiDocument(
      app.getOpenAPI31Document(config) as unknown as Record<string, unknown>,
    );
    return c.json(document);
  });
  app.get('/docs', (c) =>
    c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weft API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: 'openapi.json', dom_id: '#ui', persistAuthorization: true });</script>
</body></html>`),
  );
  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.notFound();
    const body = await readFile(path.join(swaggerDist, file));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
}
