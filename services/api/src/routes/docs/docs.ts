import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { fieldsFromIssues, validationError } from '@weft/domain';
import { z } from 'zod';
import type { AppEnv } from '../../app-env';
import { narrowToApiClients, OPENAPI_AUDIENCES, type OpenApiAudience } from '../../openapi-audience';
import { completeOpenApiDocument } from '../../openapi-contract';

const require = createRequire(import.meta.url);
const swaggerDist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** `?audience=web`: the web app's document; API clients get theirs by default (openapi-audience.ts). */
const AudienceQuery = z.object({ audience: z.enum(OPENAPI_AUDIENCES).default('api') });

/**
 * GET /api/v1/openapi.json (OpenAPI 3.1, generated from the route schemas) and an interactive
 * reference at /api/v1/docs, served from the local swagger-ui-dist package (no CDN needed).
 */
export function registerDocs(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description:
      'An API key in `X-Api-Key` (or instead as `Authorization: Bearer <key>`: one way, not both).',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`./weft api-key create`, or the API keys page) as `Authorization: Bearer <key>`. ' +
      'The API also takes the same key in an `X-Api-Key` header instead: send it one way, not both.',
  });
  // The web app: the session cookie, plus X-CSRF-Token (from GET /me) on state-changing requests
  // (openapi-contract.ts adds `Csrf` beside `Session` on every write). Only the web document
  // declares them (openapi-audience.ts).
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
  const descriptions: Record<OpenApiAudience, string> = {
    api:
      'REST API v1 of Weft, for API clients. Authenticate with an API key as `Authorization: Bearer <key>` ' +
      "(or in `X-Api-Key`: one way, not both). The routes only the web app's sign-in session can call " +
      "(`/me…`, `/auth/logout`) are in the web app's document, `openapi.json?audience=web`.",
    web:
      'REST API v1 of Weft as the web app calls it: every route, each with its credentials as alternatives ' +
      '(an API key in `X-Api-Key` or as `Authorization: Bearer`, or the sign-in session with its CSRF token ' +
      'on writes). A client sends one of them, not all; API clients read the default `openapi.json`.',
  };
  /**
   * The document for one audience, built on first request (every route is registered by then) and
   * completed with the rules the shared middleware enforces (openapi-contract.ts).
   */
  const documents = new Map<OpenApiAudience, Record<string, unknown>>();
  const openApiDocument = (audience: OpenApiAudience, appUrl: string) => {
    let document = documents.get(audience);
    if (!document) {
      const servers = [{ url: `${appUrl.replace(/\/$/, '')}/api/v1` }];
      const info = { title: 'Weft API', version: '1.0.0', description: descriptions[audience] };
      const generated = app.getOpenAPI31Document({ openapi: '3.1.0', info, servers });
      document = completeOpenApiDocument(generated as unknown as Record<string, unknown>);
      if (audience === 'api') narrowToApiClients(document);
      documents.set(audience, document);
    }
    return document;
  };
  app.get('/openapi.json', (c) => {
    const query = AudienceQuery.safeParse(c.req.query());
    if (!query.success) throw validationError(fieldsFromIssues(query.error.issues));
    return c.json(openApiDocument(query.data.audience, c.get('siteUrl')));
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
