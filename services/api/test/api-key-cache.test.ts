import { createTestApi, jsonRequester, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplica, expectError, readJson, validWorkflow } from './helpers';

/**
 * The key cache of an API process (src/auth/api-key-cache.ts) must never serve a key that was
 * revoked or whose permissions changed, on any replica: PostgreSQL re-checks a cached key inside
 * each request (packages/db/src/caller.ts). Each test warms the cache of two app instances on one
 * database first, so a request that succeeded from the cache alone would fail the test.
 */

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };

/** An API replica: its own cache and rate-limit pools, the same database. */
function replica() {
  return jsonRequester(createReplica(api));
}

const a = (method: string, path: string, key: string, body?: unknown) =>
  api.request(method, path, { key, body });

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
});
afterAll(() => api.close());

async function keyWith(permissions: Parameters<TestApi['keyFor']>[1]) {
  const key = await api.keyFor(acme.organizationId, permissions);
  const [row] = await api.db.admin`
    select id from api_keys where key_hint = ${`${key.slice(0, 9)}…${key.slice(-4)}`}`;
  return { key, id: row?.id as string };
}

/** Uses the key on both instances, so both hold it in their caches with rate-limit units to spare. */
async function warm(key: string, b: ReturnType<typeof replica>) {
  expect((await a('GET', '/api/v1/workflows', key)).status).toBe(200);
  expect((await b('GET', '/api/v1/workflows', { key })).status).toBe(200);
}

async function workflowId() {
  const res = await a('POST', '/api/v1/workflows', acme.key, { ...validWorkflow, status: 'draft' });
  expect(res.status).toBe(201);
  return (await readJson(res)).id as string;
}

describe('the cache is used', () => {
  it('serves repeated requests without a key look-up (the shared counters do not move)', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    const counters = () =>
      api.db.admin`select bucket, count from rate_limit_counters where bucket = ${`key:${id}`}`;
    const before = await counters();
    for (let i = 0; i < 20; i++) expect((await b('GET', '/api/v1/workflows', { key })).status).toBe(200);
    // Every look-up (weft_authenticate_api_key) reserves units: no change means none happened.
    expect(await counters()).toEqual(before);
  });
});

describe('revocation', () => {
  it('a key revoked through one instance is refused by the other on its very next request', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    expect((await a('POST', `/api/v1/api-keys/${id}/revoke`, acme.key)).status).toBe(200);
    await expectError(await b('GET', '/api/v1/workflows', { key }), 401, 'unauthenticated');
    await expectError(await a('GET', '/api/v1/workflows', key), 401, 'unauthenticated');
  });

  it('a revoked key writes nothing through a cached instance', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    await api.db.admin`update api_keys set revoked_at = now() where id = ${id}`;
    const res = await b('POST', '/api/v1/workflows', {
      key,
      body: { ...validWorkflow, name: 'Ghost write' },
    });
    await expectError(res, 401, 'unauthenticated');
    const [row] = await api.db.admin`select count(*)::int as n from workflows where name = 'Ghost write'`;
    expect(row?.n).toBe(0);
  });

  it('is refused on routes that never open a tenancy transaction, and on early client errors', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    expect((await b('GET', '/api/v1/node-types', { key })).status).toBe(200);
    await api.db.admin`update api_keys set revoked_at = now() where id = ${id}`;
    await expectError(await b('GET', '/api/v1/node-types', { key }), 401, 'unauthenticated');
    await expectError(await b('GET', '/api/v1/workflows/not-a-uuid', { key }), 401, 'unauthenticated');
    await expectError(await b('GET', '/api/v1/no-such-route', { key }), 401, 'unauthenticated');
    await expectError(
      await b('POST', '/api/v1/workflows', { key, body: { name: '' } }),
      401,
      'unauthenticated',
    );
  });

  it('refuses the keys of a deleted organization', async () => {
    const other = await api.createOrg('Short-lived');
    const b = replica();
    await warm(other.key, b);
    await api.db.admin`delete from organizations where id = ${other.organizationId}`;
    await expectError(await b('GET', '/api/v1/workflows', { key: other.key }), 401, 'unauthenticated');
    await expectError(await b('GET', '/api/v1/node-types', { key: other.key }), 401, 'unauthenticated');
  });
});

describe('permission changes', () => {
  it('a narrowed key is refused (403) the permission it lost on both instances, and keeps the others', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    const victim = await workflowId();
    await api.db.admin`update api_keys set permissions = '{workflows.view}' where id = ${id}`;
    await expectError(await b('DELETE', `/api/v1/workflows/${victim}`, { key }), 403, 'forbidden');
    await expectError(await a('DELETE', `/api/v1/workflows/${victim}`, key), 403, 'forbidden');
    expect((await b('GET', `/api/v1/workflows/${victim}`, { key })).status).toBe(200);
    expect((await a('GET', `/api/v1/workflows/${victim}`, key)).status).toBe(200);
    const [row] = await api.db.admin`select count(*)::int as n from workflows where id = ${victim}`;
    expect(row?.n).toBe(1);
  });

  it('a widened key gets the new permission at once, though the cache says it lacks it', async () => {
    const { key, id } = await keyWith(['workflows.view']);
    const b = replica();
    await warm(key, b);
    await expectError(await b('POST', '/api/v1/workflows', { key, body: validWorkflow }), 403, 'forbidden');
    await api.db
      .admin`update api_keys set permissions = '{workflows.view,workflows.create}' where id = ${id}`;
    expect((await b('POST', '/api/v1/workflows', { key, body: validWorkflow })).status).toBe(201);
    expect((await a('POST', '/api/v1/workflows', key, validWorkflow)).status).toBe(201);
  });

  it('a narrowed key cannot create a key with the permissions it lost', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    await api.db.admin`update api_keys set permissions = '{api_keys.manage}' where id = ${id}`;
    const res = await b('POST', '/api/v1/api-keys', {
      key,
      body: { name: 'Escalation', permissions: ['*'] },
    });
    await expectError(res, 403, 'forbidden');
    const [row] = await api.db.admin`select count(*)::int as n from api_keys where name = 'Escalation'`;
    expect(row?.n).toBe(0);
    // What it still holds, it may still hand out.
    const ok = await b('POST', '/api/v1/api-keys', {
      key,
      body: { name: 'Allowed', permissions: ['api_keys.manage'] },
    });
    expect(ok.status).toBe(201);
  });

  it('a replay of a stored idempotent response is refused to a key that lost the permission', async () => {
    const { key, id } = await keyWith(['*']);
    const b = replica();
    await warm(key, b);
    const send = () =>
      api.app.request('/api/v1/workflows', {
        method: 'POST',
        headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': 'cache-replay' },
        body: JSON.stringify(validWorkflow),
      });
    expect((await send()).status).toBe(201);
    await api.db.admin`update api_keys set permissions = '{workflows.view}' where id = ${id}`;
    await expectError(await send(), 403, 'forbidden');
  });
});
