import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

let api: TestApi;

beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const ROUTES: Record<string, string[]> = {
  '/workflows': ['get', 'post'],
  '/workflows/{id}': ['get', 'put', 'delete'],
  '/api-keys': ['get', 'post'],
  '/api-keys/{id}/revoke': ['post'],
  '/audit-logs': ['get'],
  '/node-types': ['get'],
};

describe('GET /api/v1/openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await api.request('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    doc = await readJson(res);
  });

  it('is public and OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1(\.\d+)?$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it('names the v1 base URL as its server', () => {
    expect(doc.servers.map((s: any) => s.url)).toContain('http://localhost:3000/api/v1');
  });

  it('lists every route with its methods', () => {
    for (const [path, methods] of Object.entries(ROUTES)) {
      expect(doc.paths[path], path).toBeDefined();
      for (const method of methods) expect(doc.paths[path][method], `${method} ${path}`).toBeDefined();
    }
    // Hono's `:id` syntax never leaks into the document.
    expect(Object.keys(doc.paths).filter((p) => p.includes(':'))).toEqual([]);
  });

  it('declares the path parameter, one API key scheme (Bearer) and the error envelope', () => {
    const get = doc.paths['/workflows/{id}'].get;
    expect(get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path', required: true })]),
    );
    // One scheme, so that a generated client sends the key once (issue 20); the description names
    // the other form the server takes.
    expect(doc.components.securitySchemes).toEqual({
      Bearer: { type: 'http', scheme: 'bearer', description: expect.stringContaining('X-Api-Key') },
    });
    for (const [path, methods] of Object.entries(ROUTES)) {
      for (const method of methods) {
        const op = doc.paths[path][method];
        expect(op.security, `${method} ${path}`).toEqual([{ Bearer: [] }]);
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
      }
    }
    expect(doc.components.schemas.Error).toBeDefined();
  });

  it('leaves the session-only routes and their schemas to the web document', async () => {
    const web = await readJson(await api.request('GET', '/api/v1/openapi.json?audience=web'));
    for (const path of ['/me', '/me/sessions', '/auth/logout', '/auth/login/two-factor']) {
      expect(doc.paths[path], path).toBeUndefined();
      expect(web.paths[path], path).toBeDefined();
    }
    // Every operation of the default document is in the web one, and its only other operations
    // are those a session alone can call.
    const webOnly = Object.keys(web.paths).filter((path) => !doc.paths[path]);
    for (const path of webOnly) {
      for (const op of Object.values<any>(web.paths[path])) {
        for (const requirement of op.security) expect(Object.keys(requirement), path).toContain('Session');
      }
    }
    // Sign-in forms take no credentials: in both.
    expect(doc.paths['/auth/login'].post.security).toEqual([]);
    // A named schema only those routes use is left out with them.
    expect(doc.components.schemas.Me).toBeUndefined();
    expect(web.components.schemas.Me).toBeDefined();
    expect(Object.keys(web.components.securitySchemes).sort()).toEqual([
      'ApiKey',
      'Bearer',
      'Csrf',
      'Session',
    ]);
  });

  it('answers an unknown audience 422 in the error envelope', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json?audience=browser');
    const body = await expectError(res, 422, 'validation_error');
    expect(Object.keys(body.error.fields)).toEqual(['audience']);
  });

  it('documents request bodies and the Idempotency-Key header on creating POSTs', () => {
    const create = doc.paths['/workflows'].post;
    const schema = create.requestBody.content['application/json'].schema;
    expect(JSON.stringify(schema)).toContain('name');
    expect(create.responses['201']).toBeDefined();
    expect(create.parameters.map((p: any) => p.name.toLowerCase())).toContain('idempotency-key');
    const list = doc.paths['/audit-logs'].get;
    const names = list.parameters.map((p: any) => p.name);
    for (const q of ['per_page', 'page', 'user_id', 'action', 'entity_type', 'from', 'to']) {
      expect(names).toContain(q);
    }
  });

  it('can be fetched without a key even when one is invalid', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json', { key: 'weft_invalid' });
    expect(res.status).toBe(200);
  });
});

describe('GET /api/v1/docs', () => {
  it('serves HTML whose local assets answer 200', async () => {
    const res = await api.request('GET', '/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    const base = 'http://localhost:3000/api/v1/docs';
    for (const ref of refs) {
      const url = new URL(ref, base);
      expect(url.origin, `${ref} must be served locally, not from a CDN`).toBe('http://localhost:3000');
      const asset = await api.request('GET', url.pathname);
      expect(asset.status, url.pathname).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, url.pathname).toBeGreaterThan(1000);
    }
    // The page points the UI at the OpenAPI document.
    expect(html).toContain('openapi.json');
    const js = refs.find((r) => r.endsWith('.js'));
    const css = refs.find((r) => r.endsWith('.css'));
    expect(js && css).toBeTruthy();
    const jsRes = await api.request('GET', new URL(js as string, base).pathname);
    expect(jsRes.headers.get('Content-Type')).toMatch(/javascript/);
    const cssRes = await api.request('GET', new URL(css as string, base).pathname);
    expect(cssRes.headers.get('Content-Type')).toMatch(/^text\/css/);
  });

  it('does not serve other files from the asset directory', async () => {
    for (const file of ['package.json', 'index.html', '..%2F..%2Fpackage.json', 'swagger-ui.js.map']) {
      const res = await api.request('GET', `/api/v1/docs/assets/${file}`);
      expect(res.status, file).toBeGreaterThanOrEqual(400);
      expect(res.status, file).toBeLessThan(500);
    }
    await expectError(await api.request('GET', '/api/v1/docs/assets/package.json'), 404, 'not_found');
  });
});
