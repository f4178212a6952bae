import { request as httpRequest } from 'node:http';
import { createApp } from '@weft/api';
import { connectDatabase } from '@weft/db';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, expectError, expectNoLeak, listen, readJson, validWorkflow } from './helpers';

const MAX = 1024;
let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };

beforeAll(async () => {
  api = await createTestApi({ maxBodyBytes: MAX });
  acme = await api.createOrg('Acme');
});
afterAll(() => api.close());

/** A workflow body of exactly `bytes` bytes (padding in the description). */
function workflowOfSize(bytes: number, name = 'Sized'): string {
  const base = JSON.stringify({ ...validWorkflow, name, description: '' });
  const pad = bytes - Buffer.byteLength(base);
  if (pad < 0) throw new Error('base body too large');
  return JSON.stringify({ ...validWorkflow, name, description: 'd'.repeat(pad) });
}

/** Sends `chunks` with Transfer-Encoding: chunked (no Content-Length) over a real socket. */
function sendChunked(
  url: string,
  path: string,
  chunks: string[],
  headers: Record<string, string>,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = httpRequest(
      target,
      { method: 'POST', headers: { ...headers, 'Transfer-Encoding': 'chunked' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    // The server may answer and close before the whole body is written: that is fine.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    void (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        req.write(chunk);
        await new Promise((r) => setTimeout(r, 5));
      }
      req.end();
    })();
  });
}

describe('unknown routes', () => {
  it('answers 404 not_found in the envelope under /api/v1', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/workflows/x/y/z', '/api/v1/executions-typo']) {
      await expectError(await api.request('GET', path, { key: acme.key }), 404, 'not_found');
    }
  });

  it('answers 404 in the envelope outside /api/v1 too', async () => {
    for (const path of ['/api/v2/workflows', '/nothing-here', '/api']) {
      await expectError(await api.request('GET', path), 404, 'not_found');
    }
  });

  it('answers a 4xx envelope (404 or 405) for a method the route does not have', async () => {
    const res = await api.request('PATCH', '/api/v1/workflows', { key: acme.key, body: {} });
    expect([404, 405]).toContain(res.status);
    await expectError(res, res.status);
  });
});

describe('JSON bodies', () => {
  it('answers 422 validation_error for malformed JSON and stores nothing', async () => {
    const before = await countRows(api.db.admin, 'workflows');
    for (const raw of [
      '{',
      '{"name":',
      '{"name": "x",}',
      "{'name': 'x'}",
      'nul',
      '[1,]',
      '{"a":1}{"b":2}',
      'NaN',
    ]) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: raw,
        headers: { 'Content-Type': 'application/json' },
      });
      await expectError(res, 422, 'validation_error');
    }
    expect(await countRows(api.db.admin, 'workflows')).toBe(before);
  });

  it('answers 422 when the JSON is not an object', async () => {
    for (const raw of ['[]', '"a string"', '42', 'null', 'true']) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: raw,
        headers: { 'Content-Type': 'application/json' },
      });
      await expectError(res, 422, 'validation_error');
    }
  });

  it('answers 422 for a JSON body with a non-JSON content type, and for no content type', async () => {
    const before = await countRows(api.db.admin, 'workflows');
    const body = JSON.stringify(validWorkflow);
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/xml',
    ]) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body,
        headers: { 'Content-Type': type },
      });
      const json = await expectError(res, 422, 'validation_error');
      expect(json.error.fields.body, type).toBeDefined();
    }
    const bytes = await api.app.request('/api/v1/workflows', {
      method: 'POST',
      headers: { 'X-Api-Key': acme.key },
      body: new TextEncoder().encode(body),
    });
    await expectError(bytes, 422, 'validation_error');
    expect(await countRows(api.db.admin, 'workflows')).toBe(before);
  });

  it('accepts application/json with a charset and in any letter case', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: JSON.stringify({ ...validWorkflow, name: type }),
        headers: { 'Content-Type': type },
      });
      expect(res.status, type).toBe(201);
    }
  });

  it('treats an empty JSON body as {}: 422 naming the missing field name', async () => {
    const res = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: '',
      headers: { 'Content-Type': 'application/json' },
    });
    const json = await expectError(res, 422, 'validation_error');
    expect(json.error.fields.name).toBeDefined();
  });
});

describe('body size limit (MAX_BODY_BYTES = 1024)', () => {
  it('accepts a body of exactly the limit', async () => {
    const body = workflowOfSize(MAX, 'Exactly at the limit');
    expect(Buffer.byteLength(body)).toBe(MAX);
    const res = await api.request('POST', '/api/v1/workflows', { key: acme.key, body });
    expect(res.status).toBe(201);
  });

  it('answers 413 payload_too_large for one byte more with a truthful Content-Length, storing nothing', async () => {
    const before = await countRows(api.db.admin, 'workflows');
    const body = workflowOfSize(MAX + 1, 'One byte over');
    const res = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body,
      headers: { 'Content-Length': String(Buffer.byteLength(body)) },
    });
    await expectError(res, 413, 'payload_too_large');
    const noLength = await api.request('POST', '/api/v1/workflows', { key: acme.key, body });
    await expectError(noLength, 413, 'payload_too_large');
    expect(await countRows(api.db.admin, 'workflows')).toBe(before);
  });

  it('answers 413 over a real socket with Content-Length, before authentication', async () => {
    const server = await listen(api.app);
    try {
      const body = workflowOfSize(4 * MAX, 'Socket over');
      for (const headers of [{ 'X-Api-Key': acme.key }, {}] as Record<string, string>[]) {
        const res = await fetch(`${server.url}/api/v1/workflows`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body,
        });
        await expectError(res, 413, 'payload_too_large');
      }
    } finally {
      await server.close();
    }
  });

  it('answers 413 for a chunked body over the limit with no Content-Length, storing nothing', async () => {
    const before = await countRows(api.db.admin, 'workflows');
    const server = await listen(api.app);
    try {
      const body = workflowOfSize(6 * MAX, 'Chunked over');
      const chunks = body.match(/[\s\S]{1,300}/g) ?? [];
      const res = await sendChunked(server.url, '/api/v1/workflows', chunks, {
        'X-Api-Key': acme.key,
        'Content-Type': 'application/json',
      });
      expect(res.status).toBe(413);
      expectNoLeak(res.body);
      expect(JSON.parse(res.body).error.code).toBe('payload_too_large');

      // Also to a route that never reads a body.
      const get = await sendChunked(server.url, '/api/v1/node-types', chunks, { 'X-Api-Key': acme.key });
      expect(get.status).toBe(413);

      // A chunked body under the limit is read normally.
      const small = workflowOfSize(MAX - 10, 'Chunked under');
      const ok = await sendChunked(server.url, '/api/v1/workflows', small.match(/[\s\S]{1,100}/g) ?? [], {
        'X-Api-Key': acme.key,
        'Content-Type': 'application/json',
      });
      expect(ok.status).toBe(201);
      expect(JSON.parse(ok.body).name).toBe('Chunked under');
    } finally {
      await server.close();
    }
    expect(await countRows(api.db.admin, 'workflows')).toBe(before + 1);
  });
});

describe('server errors', () => {
  it('answers 500 internal_error without a stack trace or SQL when the database fails', async () => {
    const broken = connectDatabase(api.db.appUrl.replace(/\/(\w+)$/, '/no_such_database'), { max: 1 });
    const logged: unknown[] = [];
    const app = createApp({
      db: broken.db,
      env: {
        APP_URL: 'http://localhost:3000',
        MAX_BODY_BYTES: MAX,
        RATE_LIMIT_PER_KEY: 100,
        RATE_LIMIT_PER_ORG: 100,
        TRUST_PROXY_HOPS: 0,
      },
      temporalReady: async () => true,
      logError: (error) => logged.push(error),
    });
    try {
      const res = await app.request('/api/v1/workflows', { headers: { 'X-Api-Key': acme.key } });
      const body = await expectError(res, 500, 'internal_error');
      expect(body.error.message).not.toMatch(/no_such_database|database|postgres/i);
      expect(logged.length).toBe(1);
      const ready = await app.request('/readyz');
      expect(ready.status).toBe(503);
      expect((await readJson(ready)).checks.database).toBe('down');
    } finally {
      await broken.close();
    }
  });
});

describe('CORS', () => {
  const ALLOWED = 'http://localhost:3000';
  const REFUSED = [
    'http://evil.example',
    'http://localhost:3000.evil.com',
    'null',
    'https://localhost:3000',
    'http://localhost:3001',
    'http://localhost',
    'http://sub.localhost:3000',
  ];

  it('allows the APP_URL origin on actual requests and varies on Origin', async () => {
    const res = await api.request('GET', '/api/v1/workflows', {
      key: acme.key,
      headers: { Origin: ALLOWED },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(ALLOWED);
    expect(res.headers.get('Vary') ?? '').toMatch(/origin/i);
  });

  it('keeps Access-Control-Allow-Origin on error answers, so a browser can read the envelope', async () => {
    const unauthenticated = await api.request('GET', '/api/v1/workflows', { headers: { Origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('Access-Control-Allow-Origin')).toBe(ALLOWED);
    const tooLarge = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: workflowOfSize(2 * MAX),
      headers: { Origin: ALLOWED },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('Access-Control-Allow-Origin')).toBe(ALLOWED);
    const invalid = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: { name: '' },
      headers: { Origin: ALLOWED },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('Access-Control-Allow-Origin')).toBe(ALLOWED);
  });

  it('gives no Access-Control-Allow-Origin to any other origin', async () => {
    for (const origin of REFUSED) {
      const res = await api.request('GET', '/api/v1/workflows', {
        key: acme.key,
        headers: { Origin: origin },
      });
      expect(res.headers.get('Access-Control-Allow-Origin'), origin).toBeNull();
      expect(res.headers.get('Access-Control-Allow-Credentials'), origin).toBeNull();
    }
  });

  it('answers a preflight from the APP_URL origin without a key, allowing the API headers', async () => {
    const res = await api.request('OPTIONS', '/api/v1/workflows', {
      headers: {
        Origin: ALLOWED,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type, x-api-key, idempotency-key',
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(ALLOWED);
    const allowHeaders = (res.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase();
    for (const h of ['content-type', 'x-api-key', 'idempotency-key', 'authorization']) {
      expect(allowHeaders).toContain(h);
    }
    const methods = res.headers.get('Access-Control-Allow-Methods') ?? '';
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) expect(methods).toContain(m);
  });

  it('gives a preflight from any other origin no Access-Control-Allow-Origin', async () => {
    for (const origin of REFUSED) {
      const res = await api.request('OPTIONS', '/api/v1/workflows', {
        headers: { Origin: origin, 'Access-Control-Request-Method': 'DELETE' },
      });
      expect(res.status, origin).toBeLessThan(500);
      expect(res.headers.get('Access-Control-Allow-Origin'), origin).toBeNull();
    }
  });

  it('runs nothing for a preflight (no data change, no rate-limit count)', async () => {
    const before = await countRows(api.db.admin, 'workflows');
    await api.request('OPTIONS', '/api/v1/workflows', {
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
      key: acme.key,
      body: validWorkflow,
    });
    expect(await countRows(api.db.admin, 'workflows')).toBe(before);
  });
});
