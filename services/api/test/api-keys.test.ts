import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, createReplica, expectError, readJson, sha256 } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };
let globex: { organizationId: string; key: string; apiKeyId: string };

const KEY_PATTERN = /^weft_[0-9A-Za-z]{46}$/;

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

async function createKey(body: unknown, key = acme.key) {
  const res = await api.request('POST', '/api/v1/api-keys', { key, body });
  return { res, json: await readJson(res.clone()) };
}

/** A second app (another API replica) on the same database. */
function replica() {
  return createReplica(api);
}

describe('POST /api-keys', () => {
  it('answers 201 with id, name, key, permissions, created_at and message', async () => {
    const { res, json } = await createKey({ name: 'CI deploys', permissions: ['workflows.view'] });
    expect(res.status).toBe(201);
    expect(Object.keys(json).sort()).toEqual(['created_at', 'id', 'key', 'message', 'name', 'permissions']);
    expect(json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(json.name).toBe('CI deploys');
    expect(json.key).toMatch(KEY_PATTERN);
    expect(json.permissions).toEqual(['workflows.view']);
    expect(new Date(json.created_at).toISOString()).toBe(json.created_at);
    expect(Math.abs(Date.now() - Date.parse(json.created_at))).toBeLessThan(60_000);
    expect(json.message).toMatch(/\S/);

    // The new key works at once, with exactly its permissions.
    const list = await api.request('GET', '/api/v1/workflows', { key: json.key });
    expect(list.status).toBe(200);
    const create = await api.request('POST', '/api/v1/workflows', {
      key: json.key,
      body: { name: 'x', trigger_type: 'manual' },
    });
    await expectError(create, 403, 'forbidden');
  });

  it('gives every key a different value', async () => {
    const keys = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const { json } = await createKey({ name: `k${i}`, permissions: ['workflows.view'] });
      keys.add(json.key);
    }
    expect(keys.size).toBe(5);
  });

  it('stores only the SHA-256 of the key, never the key itself', async () => {
    const { json } = await createKey({ name: 'Hashed', permissions: ['workflows.view'] });
    const [row] = await api.db.admin`select key_hash from api_keys where id = ${json.id}`;
    expect(row?.key_hash).toBe(sha256(json.key));
    const dump = await api.db.admin`select row_to_json(k)::text as t from api_keys k where id = ${json.id}`;
    expect(dump[0]?.t).not.toContain(json.key);
    expect(dump[0]?.t).not.toContain(json.key.slice(5, 30));
    const audit = await api.db
      .admin`select row_to_json(a)::text as t from audit_logs a where entity_id = ${json.id}`;
    expect(audit.length).toBeGreaterThan(0);
    for (const r of audit) {
      expect(r.t).not.toContain(json.key);
      expect(r.t).not.toContain(sha256(json.key));
    }
  });

  it('needs api_keys.manage', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['api_keys.view', 'workflows.view']);
    const before = await countRows(api.db.admin, 'api_keys', acme.organizationId);
    const { res } = await createKey({ name: 'Nope', permissions: ['workflows.view'] }, viewer);
    await expectError(res, 403, 'forbidden');
    expect(await countRows(api.db.admin, 'api_keys', acme.organizationId)).toBe(before);
  });

  it('answers 401 without a key', async () => {
    const res = await api.request('POST', '/api/v1/api-keys', {
      body: { name: 'Anon', permissions: ['workflows.view'] },
    });
    await expectError(res, 401, 'unauthenticated');
  });

  it('refuses to grant permissions the calling key does not hold (403, nothing stored)', async () => {
    const manager = await api.keyFor(acme.organizationId, ['api_keys.manage', 'workflows.view']);
    const before = await countRows(api.db.admin, 'api_keys', acme.organizationId);
    for (const permissions of [['*'], ['workflows.create'], ['workflows.view', 'audit.view']]) {
      const { res } = await createKey({ name: 'Ladder', permissions }, manager);
      await expectError(res, 403, 'forbidden');
    }
    expect(await countRows(api.db.admin, 'api_keys', acme.organizationId)).toBe(before);

    const ok = await createKey({ name: 'Subset', permissions: ['workflows.view'] }, manager);
    expect(ok.res.status).toBe(201);
    const same = await createKey({ name: 'Same', permissions: ['api_keys.manage'] }, manager);
    expect(same.res.status).toBe(201);
  });

  it('answers 422 for unknown permission names, an empty list and a missing name', async () => {
    const before = await countRows(api.db.admin, 'api_keys', acme.organizationId);
    const unknown = await createKey({ name: 'Bad', permissions: ['workflows.view', 'root.everything'] });
    const body = await expectError(unknown.res, 422, 'validation_error');
    expect(Object.keys(body.error.fields).some((f) => f.startsWith('permissions'))).toBe(true);

    for (const bad of [
      { name: 'Bad', permissions: [] },
      { name: 'Bad', permissions: 'workflows.view' },
      { name: 'Bad', permissions: ['WORKFLOWS.VIEW'] },
      { name: 'Bad' },
      { permissions: ['workflows.view'] },
      { name: '   ', permissions: ['workflows.view'] },
      { name: 'x'.repeat(201), permissions: ['workflows.view'] },
    ]) {
      const { res } = await createKey(bad);
      await expectError(res, 422, 'validation_error');
    }
    expect(await countRows(api.db.admin, 'api_keys', acme.organizationId)).toBe(before);
  });

  it('ignores organization_id, id, key and revoked_at in the body', async () => {
    const forgedKey = `weft_${'A'.repeat(46)}`;
    const { res, json } = await createKey({
      name: 'Forged',
      permissions: ['workflows.view'],
      organization_id: globex.organizationId,
      id: '00000000-0000-0000-0000-000000000001',
      key: forgedKey,
      revoked_at: '2020-01-01T00:00:00Z',
    });
    expect(res.status).toBe(201);
    expect(json.id).not.toBe('00000000-0000-0000-0000-000000000001');
    expect(json.key).not.toBe(forgedKey);
    const [row] = await api.db
      .admin`select organization_id, key_hash, revoked_at from api_keys where id = ${json.id}`;
    expect(row?.organization_id).toBe(acme.organizationId);
    expect(row?.key_hash).toBe(sha256(json.key));
    expect(row?.revoked_at).toBeNull();
  });
});

describe('GET /api-keys', () => {
  it('lists metadata only: never the key, never its hash', async () => {
    const { json: created } = await createKey({ name: 'Listed', permissions: ['workflows.view'] });
    const res = await api.request('GET', '/api/v1/api-keys?per_page=100', { key: acme.key });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(sha256(created.key));
    expect(text).not.toContain(sha256(acme.key));
    expect(text).not.toContain(acme.key);
    const json = JSON.parse(text);
    for (const item of json.data)
      expect(Object.keys(item).filter((k) => /hash|secret|^key$/i.test(k))).toEqual([]);
    expect(json.meta).toMatchObject({ current_page: 1, per_page: 100 });
    expect(json.links).toBeDefined();
    const item = json.data.find((k: any) => k.id === created.id);
    expect(item).toMatchObject({
      id: created.id,
      name: 'Listed',
      permissions: ['workflows.view'],
      created_at: created.created_at,
      revoked_at: null,
    });
    expect(item.key).toBeUndefined();
  });

  it("never lists another organization's keys", async () => {
    const res = await api.request('GET', '/api/v1/api-keys?per_page=100', { key: globex.key });
    const json = await readJson(res);
    const ids = json.data.map((k: any) => k.id);
    expect(ids).toContain(globex.apiKeyId);
    expect(ids).not.toContain(acme.apiKeyId);
    const [row] = await api.db
      .admin`select count(*)::int as n from api_keys where organization_id = ${globex.organizationId}`;
    expect(json.meta.total).toBe(row?.n);
  });

  it('needs api_keys.view and a key', async () => {
    const writer = await api.keyFor(acme.organizationId, ['workflows.create']);
    await expectError(await api.request('GET', '/api/v1/api-keys', { key: writer }), 403, 'forbidden');
    await expectError(await api.request('GET', '/api/v1/api-keys'), 401, 'unauthenticated');
  });
});

describe('POST /api-keys/{id}/revoke', () => {
  it('answers 200 with revoked_at and the key is refused from the very next request', async () => {
    const { json: created } = await createKey({ name: 'Doomed', permissions: ['workflows.view'] });
    expect((await api.request('GET', '/api/v1/workflows', { key: created.key })).status).toBe(200);

    const res = await api.request('POST', `/api/v1/api-keys/${created.id}/revoke`, { key: acme.key });
    expect(res.status).toBe(200);
    const json = await readJson(res);
    expect(json).toMatchObject({ id: created.id, name: 'Doomed' });
    expect(json.key).toBeUndefined();
    expect(new Date(json.revoked_at).toISOString()).toBe(json.revoked_at);

    await expectError(
      await api.request('GET', '/api/v1/workflows', { key: created.key }),
      401,
      'unauthenticated',
    );
    await expectError(
      await api.request('GET', '/api/v1/workflows', { headers: { Authorization: `Bearer ${created.key}` } }),
      401,
      'unauthenticated',
    );
    const [row] = await api.db.admin`select revoked_at from api_keys where id = ${created.id}`;
    expect(row?.revoked_at).toBeInstanceOf(Date);
  });

  it('is refused at once by another replica that served the key before', async () => {
    const other = replica();
    const { json: created } = await createKey({ name: 'Replicated', permissions: ['workflows.view'] });
    const warm = await other.request('/api/v1/workflows', { headers: { 'X-Api-Key': created.key } });
    expect(warm.status).toBe(200);
    const revoke = await api.request('POST', `/api/v1/api-keys/${created.id}/revoke`, { key: acme.key });
    expect(revoke.status).toBe(200);
    const after = await other.request('/api/v1/workflows', { headers: { 'X-Api-Key': created.key } });
    await expectError(after, 401, 'unauthenticated');
  });

  it('a key may revoke itself and is refused afterwards', async () => {
    const self = await api.keyFor(acme.organizationId, ['api_keys.manage', 'api_keys.view']);
    const list = await readJson(await api.request('GET', '/api/v1/api-keys?per_page=100', { key: self }));
    const hint = `${self.slice(0, 9)}…${self.slice(-4)}`;
    const mine = list.data.find((k: any) => k.key_hint === hint);
    expect(mine).toBeDefined();
    const res = await api.request('POST', `/api/v1/api-keys/${mine.id}/revoke`, { key: self });
    expect(res.status).toBe(200);
    await expectError(await api.request('GET', '/api/v1/api-keys', { key: self }), 401, 'unauthenticated');
  });

  it('a key may revoke only keys whose permissions it holds: a narrow key cannot revoke a * key (403)', async () => {
    const narrow = await api.keyFor(acme.organizationId, ['api_keys.manage', 'workflows.view']);
    const { json: strong } = await createKey({ name: 'Everything', permissions: ['*'] });
    const { json: wider } = await createKey({
      name: 'Wider',
      permissions: ['workflows.view', 'workflows.update'],
    });
    const { json: weaker } = await createKey({ name: 'Weaker', permissions: ['workflows.view'] });
    for (const target of [strong, wider]) {
      const res = await api.request('POST', `/api/v1/api-keys/${target.id}/revoke`, { key: narrow });
      await expectError(res, 403, 'forbidden');
      const [row] = await api.db.admin`select revoked_at from api_keys where id = ${target.id}`;
      expect(row?.revoked_at).toBeNull();
    }
    const ok = await api.request('POST', `/api/v1/api-keys/${weaker.id}/revoke`, { key: narrow });
    expect(ok.status).toBe(200);
    // A * key may revoke anything.
    const all = await api.request('POST', `/api/v1/api-keys/${wider.id}/revoke`, { key: acme.key });
    expect(all.status).toBe(200);
  });

  it("answers 404, never 403, for another organization's key, which keeps working", async () => {
    const victim = await api.keyFor(globex.organizationId, ['workflows.view']);
    const list = await readJson(
      await api.request('GET', '/api/v1/api-keys?per_page=100', { key: globex.key }),
    );
    const victimId = list.data.find(
      (k: any) => k.key_hint === `${victim.slice(0, 9)}…${victim.slice(-4)}`,
    )?.id;
    expect(victimId).toBeDefined();

    const res = await api.request('POST', `/api/v1/api-keys/${victimId}/revoke`, { key: acme.key });
    await expectError(res, 404, 'not_found');
    const [row] = await api.db.admin`select revoked_at from api_keys where id = ${victimId}`;
    expect(row?.revoked_at).toBeNull();
    expect((await api.request('GET', '/api/v1/workflows', { key: victim })).status).toBe(200);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    for (const id of [
      '0190b6a4-1111-7222-8333-444455556666',
      '00000000-0000-0000-0000-000000000000',
      'abc',
    ]) {
      const res = await api.request('POST', `/api/v1/api-keys/${id}/revoke`, { key: acme.key });
      await expectError(res, 404, 'not_found');
    }
  });

  it('needs api_keys.manage (403) and a key (401)', async () => {
    const { json: created } = await createKey({ name: 'Guarded', permissions: ['workflows.view'] });
    const viewer = await api.keyFor(acme.organizationId, ['api_keys.view']);
    await expectError(
      await api.request('POST', `/api/v1/api-keys/${created.id}/revoke`, { key: viewer }),
      403,
      'forbidden',
    );
    await expectError(
      await api.request('POST', `/api/v1/api-keys/${created.id}/revoke`),
      401,
      'unauthenticated',
    );
    const [row] = await api.db.admin`select revoked_at from api_keys where id = ${created.id}`;
    expect(row?.revoked_at).toBeNull();
  });
});
