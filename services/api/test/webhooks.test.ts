import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson, validWorkflow } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

// A literal public address: the save-time SSRF check needs no DNS for it.
const PUBLIC_URL = 'https://93.184.215.14/hooks/weft';

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

async function createWebhook(body: unknown, key = acme.key, headers: Record<string, string> = {}) {
  const res = await api.request('POST', '/api/v1/webhooks', { key, body, headers });
  return { res, json: await readJson(res) };
}

async function storedCiphertext(id: string): Promise<string> {
  const [row] = await api.db.admin`select secret_ciphertext from webhooks where id = ${id}`;
  return row?.secret_ciphertext as string;
}

describe('POST /webhooks', () => {
  it('creates a webhook and shows a generated secret once', async () => {
    const { res, json } = await createWebhook({ url: PUBLIC_URL, events: ['execution.completed'] });
    expect(res.status).toBe(201);
    expect(json).toMatchObject({ url: PUBLIC_URL, events: ['execution.completed'] });
    expect(json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // 32 bytes, standard base64

    const fetched = await readJson(
      await api.request('GET', `/api/v1/webhooks/${json.id}`, { key: acme.key }),
    );
    expect(fetched).toEqual({
      id: json.id,
      url: PUBLIC_URL,
      events: ['execution.completed'],
      created_at: json.created_at,
      updated_at: json.updated_at,
    });
    // At rest the secret is encrypted, never in clear.
    const stored = await storedCiphertext(json.id);
    expect(stored).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(stored).not.toContain(json.secret.slice(6));
  });

  it('keeps a secret the caller chose, and drops repeated events', async () => {
    const { res, json } = await createWebhook({
      url: PUBLIC_URL,
      events: ['workflow.created', 'workflow.created', 'execution.failed'],
      secret: 'my-own-secret-123',
    });
    expect(res.status).toBe(201);
    expect(json.secret).toBe('my-own-secret-123');
    expect(json.events).toEqual(['workflow.created', 'execution.failed']);
  });

  it('replays the first answer for a repeated Idempotency-Key, creating one webhook', async () => {
    const body = { url: `${PUBLIC_URL}/idem`, events: ['execution.failed'] };
    const headers = { 'Idempotency-Key': 'create-webhook-1' };
    const first = await createWebhook(body, acme.key, headers);
    const second = await createWebhook(body, acme.key, headers);
    expect(first.res.status).toBe(201);
    expect(second.res.status).toBe(201);
    expect(second.res.headers.get('Idempotent-Replayed')).toBe('true');
    expect(second.json).toEqual(first.json);
    const [row] = await api.db.admin`select count(*)::int as n from webhooks where url = ${body.url}`;
    expect(row?.n).toBe(1);
  });

  it.each([
    ['an unknown event', { url: PUBLIC_URL, events: ['execution.exploded'] }, 'events.0'],
    ['no events', { url: PUBLIC_URL, events: [] }, 'events'],
    ['a missing url', { events: ['execution.failed'] }, 'url'],
    ['a non-http scheme', { url: 'ftp://93.184.215.14/x', events: ['execution.failed'] }, 'url'],
    ['a URL with credentials', { url: 'https://u:p@93.184.215.14/x', events: ['execution.failed'] }, 'url'],
    ['not a URL', { url: 'hooks here', events: ['execution.failed'] }, 'url'],
    ['a short secret', { url: PUBLIC_URL, events: ['execution.failed'], secret: 'short' }, 'secret'],
  ])('answers 422 for %s, naming the field', async (_what, body, field) => {
    const res = await api.request('POST', '/api/v1/webhooks', { key: acme.key, body });
    const json = await expectError(res, 422, 'validation_error');
    expect(Object.keys(json.error.fields)).toContain(field);
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0x7f000001/hook',
  ])('refuses the private URL %s with 422 on url (SSRF guard at save)', async (url) => {
    const res = await api.request('POST', '/api/v1/webhooks', {
      key: acme.key,
      body: { url, events: ['execution.failed'] },
    });
    const json = await expectError(res, 422, 'validation_error');
    expect(json.error.fields.url?.[0]).toMatch(/private, local or reserved/);
  });

  it('accepts a private URL that SSRF_ALLOWLIST opens', async () => {
    const open = await createTestApi({ ssrfAllowlist: ['127.0.0.1/32'] });
    try {
      const org = await open.createOrg('Local');
      const res = await open.request('POST', '/api/v1/webhooks', {
        key: org.key,
        body: { url: 'http://127.0.0.1:8080/hook', events: ['execution.failed'] },
      });
      expect(res.status).toBe(201);
      // The allowlist opens exactly its range, not every private address.
      const other = await open.request('POST', '/api/v1/webhooks', {
        key: org.key,
        body: { url: 'http://10.0.0.1/hook', events: ['execution.failed'] },
      });
      await expectError(other, 422, 'validation_error');
    } finally {
      await open.close();
    }
  });
});

describe('GET /webhooks', () => {
  it("lists only the caller's webhooks in the paginated envelope, without secrets", async () => {
    const mine = await createWebhook({ url: `${PUBLIC_URL}/list`, events: ['workflow.deleted'] });
    await createWebhook({ url: `${PUBLIC_URL}/theirs`, events: ['workflow.deleted'] }, globex.key);
    const res = await api.request('GET', '/api/v1/webhooks?per_page=100', { key: acme.key });
    expect(res.status).toBe(200);
    const json = await readJson(res);
    expect(json.meta).toMatchObject({ current_page: 1, per_page: 100, total: json.data.length });
    expect(json.links.first).toBe('/api/v1/webhooks?page=1&per_page=100');
    expect(json.data.map((w: any) => w.id)).toContain(mine.json.id);
    expect(json.data.some((w: any) => w.url.endsWith('/theirs'))).toBe(false);
    for (const webhook of json.data) expect(webhook).not.toHaveProperty('secret');
  });

  it('answers 422 for per_page above the maximum', async () => {
    await expectError(
      await api.request('GET', '/api/v1/webhooks?per_page=101', { key: acme.key }),
      422,
      'validation_error',
    );
  });
});

describe('PUT /webhooks/{id}', () => {
  it('replaces url and events and keeps the secret when none is given', async () => {
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    const before = await storedCiphertext(created.id);
    const res = await api.request('PUT', `/api/v1/webhooks/${created.id}`, {
      key: acme.key,
      body: { url: `${PUBLIC_URL}/v2`, events: ['execution.completed', 'execution.partial'] },
    });
    expect(res.status).toBe(200);
    const json = await readJson(res);
    expect(json).toMatchObject({
      url: `${PUBLIC_URL}/v2`,
      events: ['execution.completed', 'execution.partial'],
    });
    expect(json).not.toHaveProperty('secret');
    expect(await storedCiphertext(created.id)).toBe(before);
  });

  it('replaces the secret when one is given', async () => {
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    const before = await storedCiphertext(created.id);
    const res = await api.request('PUT', `/api/v1/webhooks/${created.id}`, {
      key: acme.key,
      body: { url: PUBLIC_URL, events: ['execution.failed'], secret: 'rotated-secret-456' },
    });
    expect(res.status).toBe(200);
    expect(await storedCiphertext(created.id)).not.toBe(before);
  });

  it('answers 422 for a private URL and leaves the webhook unchanged', async () => {
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    const res = await api.request('PUT', `/api/v1/webhooks/${created.id}`, {
      key: acme.key,
      body: { url: 'http://192.168.1.1/admin', events: ['execution.failed'] },
    });
    await expectError(res, 422, 'validation_error');
    const fetched = await readJson(
      await api.request('GET', `/api/v1/webhooks/${created.id}`, { key: acme.key }),
    );
    expect(fetched.url).toBe(PUBLIC_URL);
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('answers 204, after which the webhook is gone', async () => {
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    const res = await api.request('DELETE', `/api/v1/webhooks/${created.id}`, { key: acme.key });
    expect(res.status).toBe(204);
    await expectError(
      await api.request('GET', `/api/v1/webhooks/${created.id}`, { key: acme.key }),
      404,
      'not_found',
    );
    await expectError(await api.request('DELETE', `/api/v1/webhooks/${created.id}`, { key: acme.key }), 404);
  });
});

describe('security', () => {
  it('answers 401 without an API key', async () => {
    await expectError(await api.request('GET', '/api/v1/webhooks'), 401, 'unauthenticated');
    await expectError(
      await api.request('POST', '/api/v1/webhooks', {
        body: { url: PUBLIC_URL, events: ['execution.failed'] },
      }),
      401,
      'unauthenticated',
    );
  });

  it('separates webhooks.view from webhooks.manage (403)', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['webhooks.view']);
    const outsider = await api.keyFor(acme.organizationId, ['workflows.view']);
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    const body = { url: PUBLIC_URL, events: ['execution.failed'] };
    expect((await api.request('GET', '/api/v1/webhooks', { key: viewer })).status).toBe(200);
    expect(
      (await api.request('GET', `/api/v1/webhooks/${created.id}/deliveries`, { key: viewer })).status,
    ).toBe(200);
    await expectError(await api.request('POST', '/api/v1/webhooks', { key: viewer, body }), 403, 'forbidden');
    await expectError(
      await api.request('PUT', `/api/v1/webhooks/${created.id}`, { key: viewer, body }),
      403,
      'forbidden',
    );
    await expectError(await api.request('DELETE', `/api/v1/webhooks/${created.id}`, { key: viewer }), 403);
    await expectError(await api.request('GET', '/api/v1/webhooks', { key: outsider }), 403, 'forbidden');
  });

  it("answers 404 for another organization's webhook, and changes nothing", async () => {
    const { json: theirs } = await createWebhook(
      { url: PUBLIC_URL, events: ['execution.failed'] },
      globex.key,
    );
    const body = { url: `${PUBLIC_URL}/hijack`, events: ['execution.completed'] };
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/${theirs.id}`],
      ['PUT', `/api/v1/webhooks/${theirs.id}`],
      ['DELETE', `/api/v1/webhooks/${theirs.id}`],
      ['GET', `/api/v1/webhooks/${theirs.id}/deliveries`],
    ] as const) {
      const res = await api.request(method, path, {
        key: acme.key,
        body: method === 'PUT' ? body : undefined,
      });
      await expectError(res, 404, 'not_found');
    }
    const still = await readJson(
      await api.request('GET', `/api/v1/webhooks/${theirs.id}`, { key: globex.key }),
    );
    expect(still.url).toBe(PUBLIC_URL);
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    await expectError(await api.request('GET', '/api/v1/webhooks/not-a-uuid', { key: acme.key }), 404);
    await expectError(await api.request('GET', '/api/v1/webhooks/1/deliveries', { key: acme.key }), 404);
  });

  it('audits create, update and delete without ever storing the secret', async () => {
    const { json: created } = await createWebhook({
      url: PUBLIC_URL,
      events: ['execution.failed'],
      secret: 'audit-me-not-789',
    });
    await api.request('PUT', `/api/v1/webhooks/${created.id}`, {
      key: acme.key,
      body: { url: PUBLIC_URL, events: ['execution.failed'], secret: 'audit-me-not-000' },
    });
    await api.request('DELETE', `/api/v1/webhooks/${created.id}`, { key: acme.key });
    const rows = await api.db.admin`
      select action, old_values, new_values from audit_logs
      where entity_type = 'webhook' and entity_id = ${created.id} order by created_at`;
    expect(rows.map((r) => r.action)).toEqual(['created', 'updated', 'deleted']);
    expect(rows[1]?.new_values).toMatchObject({ secret_replaced: true });
    const text = JSON.stringify(rows);
    expect(text).not.toContain('audit-me-not');
  });
});

describe('GET /webhooks/{id}/deliveries and the outbox', () => {
  it('records a workflow.created delivery in the same transaction as the workflow', async () => {
    const org = await api.createOrg('Outbox');
    const hook = await createWebhook({ url: PUBLIC_URL, events: ['workflow.created'] }, org.key);
    const unsubscribed = await createWebhook({ url: PUBLIC_URL, events: ['workflow.deleted'] }, org.key);
    const res = await api.request('POST', '/api/v1/workflows', { key: org.key, body: validWorkflow });
    expect(res.status).toBe(201);
    const workflow = await readJson(res);

    const list = await readJson(
      await api.request('GET', `/api/v1/webhooks/${hook.json.id}/deliveries`, { key: org.key }),
    );
    expect(list.meta.total).toBe(1);
    // This API has no engine, so the delivery waits for the sweeper: pending, never attempted.
    expect(list.data[0]).toMatchObject({
      webhook_id: hook.json.id,
      event: 'workflow.created',
      status: 'pending',
      attempt_count: 0,
      attempts: [],
      last_status_code: null,
      next_retry_at: null,
      delivered_at: null,
    });
    const [row] = await api.db.admin`select body from webhook_deliveries where id = ${list.data[0].id}`;
    const body = JSON.parse(row?.body as string);
    expect(body).toEqual({
      id: list.data[0].id,
      event: 'workflow.created',
      created_at: list.data[0].created_at,
      data: { workflow: expect.objectContaining({ id: workflow.id, name: validWorkflow.name, version: 1 }) },
    });
    expect(body.data.workflow).not.toHaveProperty('nodes');

    const none = await readJson(
      await api.request('GET', `/api/v1/webhooks/${unsubscribed.json.id}/deliveries`, { key: org.key }),
    );
    expect(none.meta.total).toBe(0);

    const filtered = await readJson(
      await api.request('GET', `/api/v1/webhooks/${hook.json.id}/deliveries?status=succeeded`, {
        key: org.key,
      }),
    );
    expect(filtered.data).toEqual([]);
    expect(filtered.links.first).toContain('status=succeeded');
  });

  it('records nothing when a workflow change rolls back', async () => {
    const org = await api.createOrg('Rollback');
    await createWebhook({ url: PUBLIC_URL, events: ['workflow.created'] }, org.key);
    const res = await api.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: { ...validWorkflow, name: undefined },
    });
    await expectError(res, 422);
    const [row] = await api.db.admin`
      select count(*)::int as n from webhook_deliveries where organization_id = ${org.organizationId}`;
    expect(row?.n).toBe(0);
  });

  it('answers 422 for an unknown status filter', async () => {
    const { json: created } = await createWebhook({ url: PUBLIC_URL, events: ['execution.failed'] });
    await expectError(
      await api.request('GET', `/api/v1/webhooks/${created.id}/deliveries?status=lost`, { key: acme.key }),
      422,
      'validation_error',
    );
  });
});
