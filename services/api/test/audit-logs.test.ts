import { randomUUID } from 'node:crypto';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, listen, readJson, sha256, validWorkflow } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };
let globex: { organizationId: string; key: string; apiKeyId: string };

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

async function auditRows(entityId: string) {
  return api.db.admin`
    select * from audit_logs where entity_id = ${entityId} order by created_at, id`;
}

async function list(query: string, key = acme.key) {
  const res = await api.request('GET', `/api/v1/audit-logs${query}`, { key });
  return { res, json: await readJson(res.clone()) };
}

describe('what is recorded', () => {
  it('records a workflow create with the acting key, entity and new values', async () => {
    const res = await api.request('POST', '/api/v1/workflows', { key: acme.key, body: validWorkflow });
    expect(res.status).toBe(201);
    const wf = await readJson(res);
    const rows = await auditRows(wf.id);
    expect(rows).toHaveLength(1);
    const row = rows[0] as any;
    expect(row).toMatchObject({
      organization_id: acme.organizationId,
      api_key_id: acme.apiKeyId,
      user_id: null,
      action: 'created',
      entity_type: 'workflow',
      entity_id: wf.id,
      old_values: null,
    });
    expect(row.new_values).toMatchObject({ id: wf.id, name: validWorkflow.name, status: 'active' });
  });

  it('records an update with only the changed keys on both sides (JSON diff)', async () => {
    const created = await readJson(
      await api.request('POST', '/api/v1/workflows', { key: acme.key, body: validWorkflow }),
    );
    const res = await api.request('PUT', `/api/v1/workflows/${created.id}`, {
      key: acme.key,
      body: { ...validWorkflow, name: 'Renamed', status: 'inactive' },
    });
    expect(res.status).toBe(200);
    const rows = (await auditRows(created.id)) as any[];
    expect(rows.map((r) => r.action)).toEqual(['created', 'updated']);
    const update = rows[1];
    expect(update.api_key_id).toBe(acme.apiKeyId);
    expect(update.entity_type).toBe('workflow');
    expect(update.old_values).toMatchObject({ name: validWorkflow.name, status: 'active', version: 1 });
    expect(update.new_values).toMatchObject({ name: 'Renamed', status: 'inactive', version: 2 });
    // Unchanged fields are not repeated.
    const allowed = ['name', 'status', 'version', 'updated_at'];
    for (const side of [update.old_values, update.new_values]) {
      expect(Object.keys(side).filter((k) => !allowed.includes(k))).toEqual([]);
    }
    expect(Object.keys(update.old_values).sort()).toEqual(Object.keys(update.new_values).sort());
  });

  it('records a delete with the old values', async () => {
    const created = await readJson(
      await api.request('POST', '/api/v1/workflows', { key: acme.key, body: validWorkflow }),
    );
    const res = await api.request('DELETE', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(res.status).toBe(204);
    const rows = (await auditRows(created.id)) as any[];
    expect(rows.map((r) => r.action)).toEqual(['created', 'deleted']);
    expect(rows[1]).toMatchObject({ api_key_id: acme.apiKeyId, entity_type: 'workflow', new_values: null });
    expect(rows[1].old_values).toMatchObject({ id: created.id, name: validWorkflow.name });
  });

  it('records API key creation and revocation without the key or its hash', async () => {
    const created = await readJson(
      await api.request('POST', '/api/v1/api-keys', {
        key: acme.key,
        body: { name: 'Audited', permissions: ['workflows.view'] },
      }),
    );
    const revoke = await api.request('POST', `/api/v1/api-keys/${created.id}/revoke`, { key: acme.key });
    expect(revoke.status).toBe(200);
    const rows = (await auditRows(created.id)) as any[];
    expect(rows.map((r) => r.action)).toEqual(['created', 'revoked']);
    for (const row of rows) {
      expect(row).toMatchObject({ api_key_id: acme.apiKeyId, entity_type: 'api_key', entity_id: created.id });
      const text = JSON.stringify(row);
      expect(text).not.toContain(created.key);
      expect(text).not.toContain(sha256(created.key));
    }
    expect(rows[0].new_values).toMatchObject({ name: 'Audited', permissions: ['workflows.view'] });
    expect(rows[1].old_values.revoked_at).toBeNull();
    expect(rows[1].new_values.revoked_at).toEqual(expect.any(String));
  });

  it('records nothing for refused or failed requests', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    const before = await api.db.admin`select count(*)::int as n from audit_logs`;
    await api.request('POST', '/api/v1/workflows', { key: viewer, body: validWorkflow }); // 403
    await api.request('POST', '/api/v1/workflows', { key: acme.key, body: { name: '' } }); // 422
    await api.request('DELETE', `/api/v1/workflows/${randomUUID()}`, { key: acme.key }); // 404
    await api.request('POST', `/api/v1/api-keys/${randomUUID()}/revoke`, { key: acme.key }); // 404
    const after = await api.db.admin`select count(*)::int as n from audit_logs`;
    expect(after[0]?.n).toBe(before[0]?.n);
  });

  it('records the client IP address from the socket, not from a spoofed X-Forwarded-For', async () => {
    const server = await listen(api.app);
    try {
      const res = await fetch(`${server.url}/api/v1/workflows`, {
        method: 'POST',
        headers: {
          'X-Api-Key': acme.key,
          'Content-Type': 'application/json',
          'X-Forwarded-For': '203.0.113.7',
        },
        body: JSON.stringify(validWorkflow),
      });
      expect(res.status).toBe(201);
      const wf = await readJson(res);
      const [row] = (await auditRows(wf.id)) as any[];
      expect(row.ip_address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await server.close();
    }
  });
});

describe('GET /audit-logs', () => {
  let org: { organizationId: string; key: string; apiKeyId: string };
  const userId = randomUUID();
  beforeAll(async () => {
    org = await api.createOrg('Audited Co');
    // 30 old rows written directly (2020), one of them by a user; plus 4 recent ones: the creation of
    // the org's first key (by createOrg), a workflow create and update, and an API key create.
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: randomUUID(),
      organization_id: org.organizationId,
      user_id: i === 0 ? userId : null,
      api_key_id: null,
      ip_address: null,
      action: i % 3 === 0 ? 'created' : i % 3 === 1 ? 'updated' : 'deleted',
      entity_type: i % 2 === 0 ? 'workflow' : 'webhook',
      entity_id: randomUUID(),
      old_values: null,
      new_values: null,
      created_at: new Date(Date.UTC(2020, 0, 1, 0, i)),
    }));
    await api.db.admin`insert into audit_logs ${api.db.admin(rows)}`;
    const wf = await readJson(
      await api.request('POST', '/api/v1/workflows', { key: org.key, body: validWorkflow }),
    );
    await api.request('PUT', `/api/v1/workflows/${wf.id}`, {
      key: org.key,
      body: { ...validWorkflow, name: 'New name' },
    });
    await api.request('POST', '/api/v1/api-keys', {
      key: org.key,
      body: { name: 'Listed key', permissions: ['workflows.view'] },
    });
  });

  it('answers the paginated envelope, 25 per page by default, newest first', async () => {
    const { res, json } = await list('');
    expect(res.status).toBe(200);
    const { json: own } = await list('', org.key);
    expect(own.meta).toEqual({ current_page: 1, last_page: 2, per_page: 25, total: 34 });
    expect(own.data).toHaveLength(25);
    expect(own.links.next).toBe('/api/v1/audit-logs?page=2&per_page=25');
    expect(own.links.prev).toBeNull();
    expect(Object.keys(own.data[0]).sort()).toEqual(
      [
        'action',
        'api_key_id',
        'created_at',
        'entity_id',
        'entity_type',
        'id',
        'ip_address',
        'new_values',
        'old_values',
        'user_id',
      ].sort(),
    );
    const times = own.data.map((r: any) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(own.data[0].created_at >= own.data[24].created_at).toBe(true);
    expect(json.meta.per_page).toBe(25);
  });

  it('takes per_page up to 100 and refuses 101 with 422', async () => {
    const { json } = await list('?per_page=100', org.key);
    expect(json.data).toHaveLength(34);
    expect(json.meta.per_page).toBe(100);
    const { res } = await list('?per_page=101', org.key);
    const body = await expectError(res, 422, 'validation_error');
    expect(body.error.fields.per_page).toBeDefined();
  });

  it('filters by action, accepting created/updated/deleted and create/update/delete', async () => {
    for (const [past, imperative] of [
      ['created', 'create'],
      ['updated', 'update'],
      ['deleted', 'delete'],
    ]) {
      const a = (await list(`?action=${past}&per_page=100`, org.key)).json;
      const b = (await list(`?action=${imperative}&per_page=100`, org.key)).json;
      expect(a.data.length).toBeGreaterThan(0);
      expect(a.data.every((r: any) => r.action === past)).toBe(true);
      expect(b.data.map((r: any) => r.id)).toEqual(a.data.map((r: any) => r.id));
    }
    // 10 old rows each, plus two key creations and a workflow create / the update through the API.
    expect((await list('?action=created', org.key)).json.meta.total).toBe(13);
    expect((await list('?action=updated', org.key)).json.meta.total).toBe(11);
    expect((await list('?action=deleted', org.key)).json.meta.total).toBe(10);
    await expectError((await list('?action=destroyed', org.key)).res, 422, 'validation_error');
  });

  it('filters by entity_type', async () => {
    const keys = (await list('?entity_type=api_key&per_page=100', org.key)).json;
    expect(keys.meta.total).toBe(2);
    expect(keys.data.every((r: any) => r.entity_type === 'api_key' && r.action === 'created')).toBe(true);
    // The key made through the API names the acting key; the one made by the fixture has no actor.
    expect(keys.data.map((r: any) => r.api_key_id)).toEqual([org.apiKeyId, null]);
    const workflows = (await list('?entity_type=workflow&per_page=100', org.key)).json;
    expect(workflows.meta.total).toBe(15 + 2);
    expect(workflows.data.every((r: any) => r.entity_type === 'workflow')).toBe(true);
    expect((await list('?entity_type=nothing', org.key)).json.meta.total).toBe(0);
  });

  it('filters by user_id', async () => {
    const mine = (await list(`?user_id=${userId}`, org.key)).json;
    expect(mine.meta.total).toBe(1);
    expect(mine.data[0].user_id).toBe(userId);
    expect((await list(`?user_id=${randomUUID()}`, org.key)).json.meta.total).toBe(0);
    await expectError((await list('?user_id=not-a-uuid', org.key)).res, 422, 'validation_error');
  });

  it('filters by from and to (inclusive, ISO 8601)', async () => {
    const range = (await list('?from=2020-01-01T00:05:00Z&to=2020-01-01T00:09:00Z&per_page=100', org.key))
      .json;
    expect(range.meta.total).toBe(5);
    const recent = (await list('?from=2021-01-01T00:00:00Z', org.key)).json;
    expect(recent.meta.total).toBe(4);
    const old = (await list('?to=2020-12-31T23:59:59.999Z', org.key)).json;
    expect(old.meta.total).toBe(30);
    const offset = (
      await list(`?from=${encodeURIComponent('2020-01-01T01:05:00+01:00')}&to=2020-01-01T00:06:00Z`, org.key)
    ).json;
    expect(offset.meta.total).toBe(2);
    const future = (await list('?from=2999-01-01T00:00:00Z', org.key)).json;
    expect(future.meta.total).toBe(0);
    expect(future.data).toEqual([]);
    const links = (await list('?from=2020-01-01T00:00:00Z&per_page=1', org.key)).json.links;
    expect(links.next).toContain('from=2020-01-01T00%3A00%3A00Z');
  });

  it("never shows another organization's rows", async () => {
    const { json } = await list('?per_page=100', globex.key);
    const ids = new Set(json.data.map((r: any) => r.id));
    const [acmeRow] = await api.db
      .admin`select id from audit_logs where organization_id = ${org.organizationId} limit 1`;
    expect(ids.has(acmeRow?.id)).toBe(false);
    const [n] = await api.db
      .admin`select count(*)::int as n from audit_logs where organization_id = ${globex.organizationId}`;
    expect(json.meta.total).toBe(n?.n);
    expect(json.data.every((r: any) => r.entity_id !== org.apiKeyId)).toBe(true);
  });

  it('needs audit.view (403) and a key (401)', async () => {
    const noAudit = await api.keyFor(org.organizationId, [
      'workflows.view',
      'workflows.create',
      'api_keys.view',
      'api_keys.manage',
    ]);
    await expectError((await list('', noAudit)).res, 403, 'forbidden');
    await expectError(await api.request('GET', '/api/v1/audit-logs'), 401, 'unauthenticated');
    const auditor = await api.keyFor(org.organizationId, ['audit.view']);
    expect((await list('', auditor)).res.status).toBe(200);
  });
});

describe('the audit trail is append-only for the runtime role', () => {
  it('refuses UPDATE and DELETE on audit_logs (insufficient privilege)', async () => {
    const [row] = await api.db
      .admin`select id from audit_logs where organization_id = ${acme.organizationId} limit 1`;
    expect(row).toBeDefined();
    const inTenant = (work: (sql: any) => Promise<unknown>) =>
      api.db.app.sql.begin(async (sql: any) => {
        await sql`select set_config('app.org_id', ${acme.organizationId}, true)`;
        return work(sql);
      });

    // The runtime role can read its own organization's rows (so RLS scoping works) ...
    const visible = (await inTenant((sql) => sql`select id from audit_logs where id = ${row?.id}`)) as any[];
    expect(visible).toHaveLength(1);
    // ... but cannot change or remove them.
    await expect(
      inTenant((sql) => sql`update audit_logs set action = 'tampered' where id = ${row?.id}`),
    ).rejects.toMatchObject({ code: '42501' });
    await expect(inTenant((sql) => sql`delete from audit_logs where id = ${row?.id}`)).rejects.toMatchObject({
      code: '42501',
    });
    await expect(inTenant((sql) => sql`truncate audit_logs`)).rejects.toMatchObject({ code: '42501' });
    const [still] = await api.db.admin`select action from audit_logs where id = ${row?.id}`;
    expect(still?.action).not.toBe('tampered');
  });

  it("refuses to insert a row for another organization and cannot see another organization's rows", async () => {
    const [other] = await api.db
      .admin`select id from audit_logs where organization_id = ${globex.organizationId} limit 1`;
    expect(other).toBeDefined();
    const result = await api.db.app.sql.begin(async (sql: any) => {
      await sql`select set_config('app.org_id', ${acme.organizationId}, true)`;
      return sql`select id from audit_logs where id = ${other?.id}`;
    });
    expect(result).toHaveLength(0);
    await expect(
      api.db.app.sql.begin(async (sql: any) => {
        await sql`select set_config('app.org_id', ${acme.organizationId}, true)`;
        await sql`insert into audit_logs (id, organization_id, action, entity_type, entity_id)
          values (${randomUUID()}, ${globex.organizationId}, 'created', 'workflow', 'x')`;
      }),
    ).rejects.toMatchObject({ code: '42501' });
  });
});
