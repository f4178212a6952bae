import { createApp } from '@weft/api';
import { connectDatabase } from '@weft/db';
import { generateApiKey } from '@weft/domain';
import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeak } from './helpers';

// The API against a PostgreSQL that is not there (stopped, restarting): a retryable 503 in the
// error envelope with Retry-After, never a 500 (weft chaos postgres-stop found 500s here).
let handle: ReturnType<typeof connectDatabase>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  const port = await freePort();
  handle = connectDatabase(`postgres://weft_app:x@127.0.0.1:${port}/weft`, { max: 1 });
  app = createApp({
    db: handle.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1000,
      RATE_LIMIT_PER_ORG: 1000,
      TRUST_PROXY_HOPS: 0,
    },
    temporalReady: async () => true,
    logError: () => {},
  });
});

afterAll(async () => {
  await handle?.close();
});

describe('while the database is unreachable', () => {
  it('answers reads and writes with 503 service_unavailable and Retry-After', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/workflows', undefined],
      ['POST', '/api/v1/events', { event: 'order.created', payload: {} }],
    ] as const) {
      const res = await app.request(path, {
        method,
        headers: {
          'X-Api-Key': generateApiKey(),
          'Content-Type': 'application/json',
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const text = await res.text();
      expect(JSON.parse(text).error).toMatchObject({ code: 'service_unavailable' });
      expectNoLeak(text);
    }
  });

  it('reports not ready on /readyz', async () => {
    const res = await app.request('/readyz');
    expect(res.status).toBe(503);
  });
});
