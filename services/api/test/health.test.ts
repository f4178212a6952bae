import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from './helpers';

describe('health endpoints (Temporal up)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ temporalReady: async () => true });
  });
  afterAll(() => api.close());

  it('GET /healthz answers 200 without a key', async () => {
    const res = await api.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when PostgreSQL and Temporal answer', async () => {
    const res = await api.request('GET', '/readyz');
    expect(res.status).toBe(200);
    const json = await readJson(res);
    expect(json.checks).toEqual({ database: 'ok', temporal: 'ok' });
  });
});

describe('health endpoints (Temporal down)', () => {
  let api: TestApi;
  let down: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ temporalReady: async () => false });
    down = await createTestApi({
      temporalReady: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:7233');
      },
    });
  });
  afterAll(async () => {
    await api.close();
    await down.close();
  });

  it('GET /readyz answers 503 naming temporal as down', async () => {
    const res = await api.request('GET', '/readyz');
    expect(res.status).toBe(503);
    const json = await readJson(res);
    expect(json.checks).toEqual({ database: 'ok', temporal: 'down' });
  });

  it('treats a failing probe as down without leaking its error', async () => {
    const res = await down.request('GET', '/readyz');
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).not.toContain('ECONNREFUSED');
    expect(JSON.parse(text).checks.temporal).toBe('down');
  });

  it('GET /healthz stays 200 (liveness does not depend on Temporal)', async () => {
    expect((await api.request('GET', '/healthz')).status).toBe(200);
  });
});
