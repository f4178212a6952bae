import { randomUUID } from 'node:crypto';
import { createApp } from '@weft/api';
import { createLogger } from '@weft/telemetry';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listen, readJson } from './helpers';

let api: TestApi;
let org: { organizationId: string; key: string };
/** JSON lines the app under test logged. */
const lines: Record<string, unknown>[] = [];

/** An app on the test database whose logger writes into `lines`. */
function appWith(env: { TRUST_PROXY_HOPS?: number; METRICS_TOKEN?: string } = {}) {
  return createApp({
    db: api.db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 100_000,
      RATE_LIMIT_PER_ORG: 100_000,
      TRUST_PROXY_HOPS: env.TRUST_PROXY_HOPS ?? 0,
      METRICS_TOKEN: env.METRICS_TOKEN,
    },
    temporalReady: async () => true,
    logger: createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    }),
    logError: () => {},
  });
}

let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  api = await createTestApi();
  org = await api.createOrg('Telemetry Org');
  app = appWith();
});
afterAll(() => api.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('gives every response an X-Request-Id, and every error envelope the same id', async () => {
    const ok = await app.request('/healthz');
    expect(ok.headers.get('x-request-id')).toMatch(UUID);

    const missing = await app.request(`/api/v1/workflows/${randomUUID()}`, {
      headers: { 'X-Api-Key': org.key },
    });
    const body = await expectError(missing, 404, 'not_found');
    expect(body.error.request_id).toMatch(UUID);
    expect(body.error.request_id).toBe(missing.headers.get('x-request-id'));

    // Errors made before any route (no key, an unknown route) carry it too.
    const unauthenticated = await expectError(await app.request('/api/v1/workflows'), 401, 'unauthenticated');
    const unknown = await expectError(await app.request('/no-such-route'), 404, 'not_found');
    expect(new Set([unauthenticated.error.request_id, unknown.error.request_id]).size).toBe(2);
  });

  it("echoes a client's own id when it is short and plain", async () => {
    for (const id of ['req-42', 'Trace.ab12:cd_34', randomUUID(), 'a'.repeat(128)]) {
      const res = await app.request('/api/v1/workflows', { headers: { 'X-Request-Id': id } });
      expect(res.headers.get('x-request-id')).toBe(id);
      expect((await readJson(res)).error.request_id).toBe(id);
    }
  });

  it('replaces an id that is too long or could forge a log line or header', async () => {
    for (const id of ['a'.repeat(129), 'two words', '{"level":"fatal"}', 'x<script>', '-leading-dash', 'é']) {
      const res = await app.request('/healthz', { headers: { 'X-Request-Id': id } });
      expect(res.headers.get('x-request-id'), id).toMatch(UUID);
    }
  });
});

describe('the access log', () => {
  it('writes one line per request with route pattern, status, duration, ids, and no secrets', async () => {
    const id = `probe-${Date.now()}`;
    const workflowId = randomUUID();
    const secrets = ['weft_not_a_real_key_0000', 'session=s3cr3t-cookie', 'hunter2-password', 'q-token-abc'];
    await app.request(`/api/v1/workflows/${workflowId}?token=q-token-abc`, {
      method: 'PUT',
      headers: {
        'X-Request-Id': id,
        'X-Api-Key': org.key,
        Authorization: 'Bearer weft_not_a_real_key_0000',
        Cookie: 'session=s3cr3t-cookie',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ name: 'x', password: 'hunter2-password' }),
    });
    const mine = lines.filter((l) => l.request_id === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'PUT',
      route: '/api/v1/workflows/:id',
      status: expect.any(Number),
      duration_ms: expect.any(Number),
      request_id: id,
      org_id: org.organizationId,
      time: expect.any(String),
    });
    const text = JSON.stringify(lines);
    for (const secret of [...secrets, org.key, workflowId]) expect(text).not.toContain(secret);
  });

  it('names unmatched requests by no path at all', async () => {
    const id = `unmatched-${Date.now()}`;
    await app.request('/api/v1/users/some-id/whatever', { headers: { 'X-Request-Id': id } });
    expect(lines.find((l) => l.request_id === id)).toMatchObject({ route: 'unmatched' });
  });
});

/** The value of one sample of the exposition text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = line.match(/^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('answers Prometheus text to a local caller, the counters moving with requests', async () => {
    const server = await listen(app);
    try {
      const scrape = async () => {
        const res = await fetch(`${server.url}/metrics`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return res.text();
      };
      const notFound = { method: 'GET', route: '/api/v1/workflows/:id', status: '404' };
      const listed = { method: 'GET', route: '/api/v1/workflows', status: '200' };
      const before = await scrape();
      const headers = { 'X-Api-Key': org.key };
      expect((await fetch(`${server.url}/api/v1/workflows/${randomUUID()}`, { headers })).status).toBe(404);
      expect((await fetch(`${server.url}/api/v1/workflows`, { headers })).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/workflows`, { headers })).status).toBe(200);
      const after = await scrape();

      expect(after).toContain('# TYPE weft_http_requests_total counter');
      expect(
        sample(after, 'weft_http_requests_total', notFound) -
          sample(before, 'weft_http_requests_total', notFound),
      ).toBe(1);
      expect(
        sample(after, 'weft_http_requests_total', listed) -
          sample(before, 'weft_http_requests_total', listed),
      ).toBe(2);
      const count = 'weft_http_request_duration_seconds_count';
      expect(sample(after, count, listed) - sample(before, count, listed)).toBe(2);
      // Raw paths (ids) never become labels.
      expect(after).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}/);
    } finally {
      await server.close();
    }
  });

  it('is refused to a caller that is not local, unless it brings METRICS_TOKEN', async () => {
    // In process there is no socket: the caller is not known to be local.
    await expectError(await app.request('/metrics'), 401, 'unauthenticated');

    // A forwarded request over loopback (a proxy on this host) is no local caller, token unset or not.
    const local = await listen(app);
    try {
      for (const header of ['X-Forwarded-For', 'Forwarded', 'X-Real-IP']) {
        const forwarded = await fetch(`${local.url}/metrics`, { headers: { [header]: '203.0.113.9' } });
        await expectError(forwarded, 401, 'unauthenticated');
      }
      expect((await fetch(`${local.url}/metrics`)).status).toBe(200);
    } finally {
      await local.close();
    }

    // Behind a proxy (TRUST_PROXY_HOPS) every caller arrives from the proxy: only the token opens it.
    const proxied = appWith({ TRUST_PROXY_HOPS: 1, METRICS_TOKEN: 'metrics-s3cret' });
    const server = await listen(proxied);
    try {
      const get = (headers: Record<string, string> = {}) => fetch(`${server.url}/metrics`, { headers });
      await expectError(await get({ 'X-Forwarded-For': '203.0.113.9' }), 401, 'unauthenticated');
      await expectError(await get({ Authorization: 'Bearer wrong' }), 401, 'unauthenticated');
      const allowed = await get({ Authorization: 'Bearer metrics-s3cret', 'X-Forwarded-For': '203.0.113.9' });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('weft_http_requests_total');
    } finally {
      await server.close();
    }
  });
});
