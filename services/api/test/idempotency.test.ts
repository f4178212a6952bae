import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, expectError, readJson, validWorkflow } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };
let globex: { organizationId: string; key: string; apiKeyId: string };

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

function post(idempotencyKey: string, body: unknown, key = acme.key, path = '/api/v1/workflows') {
  return api.request('POST', path, { key, body, headers: { 'Idempotency-Key': idempotencyKey } });
}

const workflowsNamed = async (name: string, organizationId = acme.organizationId) => {
  const [row] = await api.db.admin`
    select count(*)::int as n from workflows where organization_id = ${organizationId} and name = ${name}`;
  return row?.n as number;
};

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body, creating exactly one workflow', async () => {
    const body = { ...validWorkflow, name: 'Idem once' };
    const first = await post('idem-1', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const firstText = await first.text();

    for (let i = 0; i < 3; i++) {
      const again = await post('idem-1', body);
      expect(again.status).toBe(201);
      expect(again.headers.get('Idempotent-Replayed')).toBe('true');
      expect(again.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(await again.text()).toBe(firstText);
    }
    expect(await workflowsNamed('Idem once')).toBe(1);
    const audits = await api.db.admin`
      select count(*)::int as n from audit_logs where entity_id = ${JSON.parse(firstText).id}`;
    expect(audits[0]?.n).toBe(1);
  });

  it('never runs twice for the same key when the JSON differs only in whitespace', async () => {
    // Whitespace differences: either replayed (semantic fingerprint) or 422 (byte fingerprint), never a second row.
    const body = { ...validWorkflow, name: 'Idem bytes' };
    const first = await post('idem-bytes', JSON.stringify(body));
    expect(first.status).toBe(201);
    const second = await post('idem-bytes', JSON.stringify(body, null, 2));
    expect([201, 422]).toContain(second.status);
    if (second.status === 201) expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await workflowsNamed('Idem bytes')).toBe(1);
  });

  it('answers 422 idempotency_conflict for the same key with a different body, and runs nothing', async () => {
    const first = await post('idem-2', { ...validWorkflow, name: 'Idem A' });
    expect(first.status).toBe(201);
    const conflict = await post('idem-2', { ...validWorkflow, name: 'Idem B' });
    await expectError(conflict, 422, 'idempotency_conflict');
    expect(await workflowsNamed('Idem B')).toBe(0);
    // The same key on another route is a different request too.
    const otherRoute = await post(
      'idem-2',
      { name: 'k', permissions: ['workflows.view'] },
      acme.key,
      '/api/v1/api-keys',
    );
    await expectError(otherRoute, 422, 'idempotency_conflict');
    // The original can still be replayed.
    const replay = await post('idem-2', { ...validWorkflow, name: 'Idem A' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('scopes keys per organization', async () => {
    const body = { ...validWorkflow, name: 'Idem shared key' };
    const a = await post('idem-shared', body, acme.key);
    const b = await post('idem-shared', body, globex.key);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('Idempotent-Replayed')).toBeNull();
    const [ja, jb] = [await readJson(a), await readJson(b)];
    expect(ja.id).not.toBe(jb.id);
    expect(await workflowsNamed('Idem shared key', acme.organizationId)).toBe(1);
    expect(await workflowsNamed('Idem shared key', globex.organizationId)).toBe(1);
    // A different body under the same key in the other org is not a conflict there.
    const c = await post('idem-shared-2', { ...body, name: 'x1' }, acme.key);
    const d = await post('idem-shared-2', { ...body, name: 'x2' }, globex.key);
    expect([c.status, d.status]).toEqual([201, 201]);
    // Org B never receives org A's stored response.
    const replayB = await post('idem-shared', body, globex.key);
    expect((await readJson(replayB)).id).toBe(jb.id);
  });

  it('refuses keys over 255 characters, empty keys and keys with non-visible or non-ASCII characters', async () => {
    const before = await countRows(api.db.admin, 'workflows', acme.organizationId);
    const beforeKeys = await countRows(api.db.admin, 'idempotency_keys');
    const bad = ['k'.repeat(256), '', 'has space', 'tab\there', 'clé-é', 'x\u007f'];
    for (const key of bad) {
      const res = await post(key, { ...validWorkflow, name: 'Idem bad key' });
      const body = await expectError(res, 422, 'validation_error');
      expect(Object.keys(body.error.fields)).toContain('Idempotency-Key');
    }
    const ok = await post('k'.repeat(255), { ...validWorkflow, name: 'Idem 255' });
    expect(ok.status).toBe(201);
    expect(await countRows(api.db.admin, 'workflows', acme.organizationId)).toBe(before + 1);
    expect(await countRows(api.db.admin, 'idempotency_keys')).toBe(beforeKeys + 1);
    expect(await workflowsNamed('Idem bad key')).toBe(0);
  });

  it('50 concurrent identical requests create exactly one workflow', async () => {
    const body = { ...validWorkflow, name: 'Idem race' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post('idem-race', body)));
    const results = await Promise.all(
      responses.map(async (r) => ({
        status: r.status,
        replayed: r.headers.get('Idempotent-Replayed'),
        body: await readJson(r),
      })),
    );
    const created = results.filter((r) => r.status === 201);
    const conflicts = results.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const c of conflicts) expect(c.body.error.code).toBe('idempotency_conflict');
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(Number(r.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    }
    // Exactly one of the 201s ran the operation; the others are replays of it.
    expect(created.filter((r) => r.replayed !== 'true')).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(await workflowsNamed('Idem race')).toBe(1);
  });

  it('checks the permission before replaying: a key without api_keys.manage never gets a stored plain key', async () => {
    const body = { name: 'Replayed secret', permissions: ['workflows.view'] };
    const first = await post('idem-secret', body, acme.key, '/api/v1/api-keys');
    expect(first.status).toBe(201);
    const secret = (await readJson(first)).key as string;

    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    const replay = await post('idem-secret', body, viewer, '/api/v1/api-keys');
    const text = await replay.clone().text();
    expect(text).not.toContain(secret);
    await expectError(replay, 403, 'forbidden');
  });

  it('checks the permission before replaying a workflow creation', async () => {
    const body = { ...validWorkflow, name: 'Replay needs permission' };
    expect((await post('idem-perm', body)).status).toBe(201);
    const auditor = await api.keyFor(acme.organizationId, ['audit.view']);
    await expectError(await post('idem-perm', body, auditor), 403, 'forbidden');
  });

  it('runs again once the key has expired (10 minutes)', async () => {
    const body = { ...validWorkflow, name: 'Idem expiry' };
    const first = await readJson(await post('idem-exp', body));
    const [row] = await api.db.admin`
      select expires_at, created_at from idempotency_keys
      where organization_id = ${acme.organizationId} and key = 'idem-exp'`;
    const stored = row as { expires_at: Date; created_at: Date };
    const ttl = stored.expires_at.getTime() - stored.created_at.getTime();
    expect(Math.abs(ttl - 10 * 60_000)).toBeLessThan(5_000);

    await api.db.admin`
      update idempotency_keys set expires_at = now() - interval '1 second'
      where organization_id = ${acme.organizationId} and key = 'idem-exp'`;
    const second = await post('idem-exp', body);
    expect(second.status).toBe(201);
    expect(second.headers.get('Idempotent-Replayed')).toBeNull();
    expect((await readJson(second)).id).not.toBe(first.id);
    expect(await workflowsNamed('Idem expiry')).toBe(2);
    // And the renewed key replays the new response.
    const third = await post('idem-exp', body);
    expect(third.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await workflowsNamed('Idem expiry')).toBe(2);
  });

  it('after expiry a different body under the same key is accepted', async () => {
    await post('idem-exp-2', { ...validWorkflow, name: 'Idem E1' });
    await api.db.admin`
      update idempotency_keys set expires_at = now() - interval '1 second'
      where organization_id = ${acme.organizationId} and key = 'idem-exp-2'`;
    const res = await post('idem-exp-2', { ...validWorkflow, name: 'Idem E2' });
    expect(res.status).toBe(201);
    expect(await workflowsNamed('Idem E2')).toBe(1);
  });

  it('replays a refused request (422) as well, without storing anything', async () => {
    const before = await countRows(api.db.admin, 'workflows', acme.organizationId);
    const first = await post('idem-422', { name: '' });
    const firstBody = await expectError(first, 422, 'validation_error');
    const again = await post('idem-422', { name: '' });
    expect(again.status).toBe(422);
    expect(await readJson(again)).toEqual(firstBody);
    expect(await countRows(api.db.admin, 'workflows', acme.organizationId)).toBe(before);
  });

  it('works on POST /api-keys: one key created, the same plain key replayed', async () => {
    const body = { name: 'Idem key', permissions: ['workflows.view'] };
    const first = await post('idem-apikey', body, acme.key, '/api/v1/api-keys');
    const second = await post('idem-apikey', body, acme.key, '/api/v1/api-keys');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await readJson(second)).id).toBe((await readJson(first)).id);
    const [row] = await api.db.admin`
      select count(*)::int as n from api_keys where organization_id = ${acme.organizationId} and name = 'Idem key'`;
    expect(row?.n).toBe(1);
  });

  it('is ignored on PUT and DELETE (which are idempotent by nature)', async () => {
    const wf = await readJson(await post('idem-put-setup', { ...validWorkflow, name: 'Idem put' }));
    const put = (name: string) =>
      api.request('PUT', `/api/v1/workflows/${wf.id}`, {
        key: acme.key,
        body: { ...validWorkflow, name },
        headers: { 'Idempotency-Key': 'idem-put' },
      });
    expect((await put('P1')).status).toBe(200);
    const second = await put('P2');
    expect(second.status).toBe(200);
    expect((await readJson(second)).name).toBe('P2');
  });

  it('stores the response sealed: the row holds none of its secrets, and a replay answers the same body', async () => {
    const body = { name: 'Sealed key', permissions: ['workflows.view'] };
    const first = await post('idem-sealed', body, acme.key, '/api/v1/api-keys');
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const plainKey = JSON.parse(firstText).key as string;
    expect(plainKey.length).toBeGreaterThan(20);
    const [row] = await api.db.admin`
      select response_body from idempotency_keys
      where organization_id = ${acme.organizationId} and key = 'idem-sealed'`;
    const stored = String(row?.response_body);
    expect(stored).not.toContain(plainKey);
    expect(stored).not.toContain(plainKey.slice(-12));
    expect(stored).not.toContain('Sealed key');
    const again = await post('idem-sealed', body, acme.key, '/api/v1/api-keys');
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    // A row stored in clear before sealing (an upgrade within its 10 minutes) still replays.
    await api.db.admin`update idempotency_keys set response_body = ${firstText}
      where organization_id = ${acme.organizationId} and key = 'idem-sealed'`;
    const legacy = await post('idem-sealed', body, acme.key, '/api/v1/api-keys');
    expect(await legacy.text()).toBe(firstText);
  });

  it("deletes expired records on the organization's next claim, a bounded batch at a time", async () => {
    for (const key of ['idem-old-1', 'idem-old-2']) await post(key, { name: '' });
    await post('idem-live', { name: '' });
    await api.db.admin`
      update idempotency_keys set expires_at = now() - interval '1 second'
      where organization_id = ${acme.organizationId} and key in ('idem-old-1', 'idem-old-2')`;
    const acmeKeys = async () =>
      (
        await api.db.admin`select key from idempotency_keys where organization_id = ${acme.organizationId}`
      ).map((r) => r.key as string);
    // Another organization's claim leaves Acme's rows alone.
    await post('idem-globex', { name: '' }, globex.key);
    expect(await acmeKeys()).toEqual(expect.arrayContaining(['idem-live', 'idem-old-1', 'idem-old-2']));
    await post('idem-trigger', { name: '' });
    const after = await acmeKeys();
    expect(after).toContain('idem-live');
    expect(after).toContain('idem-trigger');
    expect(after).not.toContain('idem-old-1');
    expect(after).not.toContain('idem-old-2');
  });
});
