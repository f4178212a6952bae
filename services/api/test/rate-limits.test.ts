import { createApp } from '@weft/api';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError, readJson, validWorkflow, waitForRoomInMinute } from './helpers';

function replicaOf(api: TestApi, ratePerKey: number, ratePerOrg: number) {
  return createApp({
    db: api.db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: ratePerKey,
      RATE_LIMIT_PER_ORG: ratePerOrg,
      TRUST_PROXY_HOPS: 0,
    },
    temporalReady: async () => true,
    logError: () => {},
  });
}

/** Seconds a test's requests need inside one rate-limit window: generous, a busy machine is slow. */
const ROOM_IN_MINUTE = 20;

const limitHeaders = (res: Response) => ({
  limit: res.headers.get('X-RateLimit-Limit'),
  remaining: res.headers.get('X-RateLimit-Remaining'),
});

describe('per-key limit (ratePerKey: 5)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ ratePerKey: 5, ratePerOrg: 1000 });
  });
  afterAll(() => api.close());
  beforeEach(() => waitForRoomInMinute(api.db.admin, ROOM_IN_MINUTE));

  it('counts down X-RateLimit-Remaining and answers the 6th request with 429 and Retry-After', async () => {
    const org = await api.createOrg('Key limited');
    const seen: { limit: string | null; remaining: string | null }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.request('GET', '/api/v1/workflows', { key: org.key });
      expect(res.status).toBe(200);
      seen.push(limitHeaders(res));
    }
    expect(seen).toEqual(['4', '3', '2', '1', '0'].map((remaining) => ({ limit: '5', remaining })));

    const limited = await api.request('GET', '/api/v1/workflows', { key: org.key });
    const body = await expectError(limited, 429, 'rate_limited');
    expect(body.error.message).toMatch(/\S/);
    const retryAfter = limited.headers.get('Retry-After');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limitHeaders(limited)).toEqual({ limit: '5', remaining: '0' });
  });

  it('refuses writes over the limit without running them', async () => {
    const org = await api.createOrg('Write limited');
    for (let i = 0; i < 5; i++) await api.request('GET', '/api/v1/workflows', { key: org.key });
    const res = await api.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: { ...validWorkflow, name: 'Over the limit' },
    });
    await expectError(res, 429, 'rate_limited');
    const [row] = await api.db.admin`select count(*)::int as n from workflows where name = 'Over the limit'`;
    expect(row?.n).toBe(0);
  });

  it('carries the headers on every authenticated response, errors included', async () => {
    const org = await api.createOrg('Headers');
    const viewer = await api.keyFor(org.organizationId, ['workflows.view']);
    const responses = [
      await api.request('GET', '/api/v1/workflows', { key: org.key }), // 200
      await api.request('GET', '/api/v1/workflows/0190b6a4-1111-7222-8333-444455556666', { key: org.key }), // 404
      await api.request('POST', '/api/v1/workflows', { key: org.key, body: { name: '' } }), // 422
      await api.request('POST', '/api/v1/workflows', { key: viewer, body: validWorkflow }), // 403
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 404, 422, 403]);
    expect(responses.map(limitHeaders)).toEqual([
      { limit: '5', remaining: '4' },
      { limit: '5', remaining: '3' },
      { limit: '5', remaining: '2' },
      { limit: '5', remaining: '4' },
    ]);
  });

  it('exposes the headers to browsers through CORS', async () => {
    const org = await api.createOrg('Cors');
    const res = await api.request('GET', '/api/v1/workflows', {
      key: org.key,
      headers: { Origin: 'http://localhost:3000' },
    });
    const exposed = (res.headers.get('Access-Control-Expose-Headers') ?? '').toLowerCase();
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'retry-after']) {
      expect(exposed).toContain(name);
    }
  });

  it('keeps keys independent: one exhausted key does not limit another org', async () => {
    const a = await api.createOrg('A');
    const b = await api.createOrg('B');
    for (let i = 0; i < 6; i++) await api.request('GET', '/api/v1/workflows', { key: a.key });
    expect((await api.request('GET', '/api/v1/workflows', { key: a.key })).status).toBe(429);
    const other = await api.request('GET', '/api/v1/workflows', { key: b.key });
    expect(other.status).toBe(200);
    expect(limitHeaders(other)).toEqual({ limit: '5', remaining: '4' });
  });

  it('does not count unauthenticated requests against a key', async () => {
    const org = await api.createOrg('Anon');
    for (let i = 0; i < 10; i++) {
      const res = await api.request('GET', '/api/v1/workflows');
      expect(res.status).toBe(401);
    }
    const res = await api.request('GET', '/api/v1/workflows', { key: org.key });
    expect(limitHeaders(res)).toEqual({ limit: '5', remaining: '4' });
  });

  it('resets in the next window', async () => {
    const org = await api.createOrg('Reset');
    for (let i = 0; i < 6; i++) await api.request('GET', '/api/v1/workflows', { key: org.key });
    expect((await api.request('GET', '/api/v1/workflows', { key: org.key })).status).toBe(429);
    // Move the stored window back one minute, as if the minute had passed.
    await api.db.admin`update rate_limit_counters set window_start = window_start - interval '1 minute'`;
    const res = await api.request('GET', '/api/v1/workflows', { key: org.key });
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toEqual({ limit: '5', remaining: '4' });
  });
});

describe('per-organization limit (ratePerOrg: 5, ratePerKey: 100)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ ratePerKey: 100, ratePerOrg: 5 });
  });
  afterAll(() => api.close());
  beforeEach(() => waitForRoomInMinute(api.db.admin, ROOM_IN_MINUTE));

  it('counts every key of the organization together; other organizations are not affected', async () => {
    const org = await api.createOrg('Many keys');
    const keys = [
      org.key,
      await api.keyFor(org.organizationId, ['*']),
      await api.keyFor(org.organizationId, ['*']),
    ];
    const statuses: number[] = [];
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await api.request('GET', '/api/v1/workflows', { key: keys[i % 3] });
      statuses.push(res.status);
      remaining.push(res.headers.get('X-RateLimit-Remaining'));
      if (res.status === 200) expect(res.headers.get('X-RateLimit-Limit')).toBe('5');
      else {
        await expectError(res, 429, 'rate_limited');
        expect(Number(res.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0']);
    // A brand-new key of the same organization is limited too.
    const fresh = await api.keyFor(org.organizationId, ['*']);
    expect((await api.request('GET', '/api/v1/workflows', { key: fresh })).status).toBe(429);

    const other = await api.createOrg('Neighbour');
    expect((await api.request('GET', '/api/v1/workflows', { key: other.key })).status).toBe(200);
  });
});

describe('shared across replicas', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ ratePerKey: 5, ratePerOrg: 1000 });
  });
  afterAll(() => api.close());
  beforeEach(() => waitForRoomInMinute(api.db.admin, ROOM_IN_MINUTE));

  it('two app replicas on one database share the per-key counter', async () => {
    const org = await api.createOrg('Replicated');
    const replica = replicaOf(api, 5, 1000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res =
        i % 2 === 0
          ? await api.request('GET', '/api/v1/workflows', { key: org.key })
          : await replica.request('/api/v1/workflows', { headers: { 'X-Api-Key': org.key } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const fromReplica = await replica.request('/api/v1/workflows', { headers: { 'X-Api-Key': org.key } });
    await expectError(fromReplica, 429, 'rate_limited');
  });

  it('two replicas share the per-organization counter', async () => {
    const org = await api.createOrg('Replicated org');
    const second = await api.keyFor(org.organizationId, ['*']);
    const a = replicaOf(api, 100, 4);
    const b = replicaOf(api, 100, 4);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a : b;
      const res = await app.request('/api/v1/workflows', {
        headers: { 'X-Api-Key': i % 2 ? second : org.key },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('counts concurrent requests exactly (no lost updates)', async () => {
    const org = await api.createOrg('Burst');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.request('GET', '/api/v1/workflows', { key: org.key })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(15);
    const remaining = ok.map((r) => r.headers.get('X-RateLimit-Remaining')).sort();
    expect(remaining).toEqual(['0', '1', '2', '3', '4']);
    await readJson(limited[0] as Response);
  });
});
