import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson, validWorkflow } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

const TOKEN = 'sk_live_0123456789abcdefWXYZ';

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

async function create(body: unknown, key = acme.key) {
  const res = await api.request('POST', '/api/v1/credentials', { key, body });
  return { res, json: await readJson(res.clone()) };
}

/** Every place a secret could leak to: stored rows in clear, and the audit trail. */
async function everythingStoredAbout(organizationId: string): Promise<string> {
  const credentials = await api.db.admin`select * from credentials where organization_id = ${organizationId}`;
  const audit = await api.db.admin`select * from audit_logs where organization_id = ${organizationId}`;
  return JSON.stringify({ credentials, audit });
}

describe('credentials', () => {
  it('stores secrets encrypted and answers them masked, in every response and the audit trail', async () => {
    const { res, json } = await create({ name: 'Stripe', type: 'http_bearer', fields: { token: TOKEN } });
    expect(res.status).toBe(201);
    expect(json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Stripe',
      type: 'http_bearer',
      fields: { token: '••••WXYZ' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await readJson(await api.request('GET', `/api/v1/credentials/${json.id}`, { key: acme.key }));
    expect(got).toEqual(json);
    const list = await readJson(await api.request('GET', '/api/v1/credentials', { key: acme.key }));
    expect(list.data).toContainEqual(json);

    const stored = await everythingStoredAbout(acme.organizationId);
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain('0123456789abcdef');
    const [row] = await api.db.admin`select secret_ciphertext from credentials where id = ${json.id}`;
    expect(row?.secret_ciphertext).toMatch(/^v2\.[0-9a-f]{8}\./);
  });

  it('masks by characters: a secret ending in an emoji is stored and answered with the whole emoji', async () => {
    // Sliced by UTF-16 units the mask kept half the emoji, which jsonb refused (422 "could not be stored").
    const { res, json } = await create({
      name: 'Emoji',
      type: 'webhook_secret',
      fields: { secret: 'secret-value-😀' },
    });
    expect(res.status).toBe(201);
    expect(json.fields.secret).toBe('••••ue-😀');
  });

  it('keeps public fields as given and masks short secrets entirely', async () => {
    const { res, json } = await create({
      name: 'Partner API',
      type: 'http_header',
      fields: { name: 'X-Api-Key', value: 'short' },
    });
    expect(res.status).toBe(201);
    expect(json.fields).toEqual({ name: 'X-Api-Key', value: '••••' });
  });

  it('PUT keeps a secret that is left out, replaces one that is given, and audits only which changed', async () => {
    const { json } = await create({
      name: 'Basic',
      type: 'http_basic',
      fields: { username: 'ann', password: 'first-password-1234' },
    });
    const renamed = await api.request('PUT', `/api/v1/credentials/${json.id}`, {
      key: acme.key,
      body: { name: 'Basic renamed', type: 'http_basic', fields: { username: 'bob' } },
    });
    expect(renamed.status).toBe(200);
    expect((await readJson(renamed)).fields).toEqual({ username: 'bob', password: '••••1234' });

    const replaced = await api.request('PUT', `/api/v1/credentials/${json.id}`, {
      key: acme.key,
      body: {
        name: 'Basic renamed',
        type: 'http_basic',
        fields: { username: 'bob', password: 'second-pass-9876' },
      },
    });
    expect((await readJson(replaced)).fields.password).toBe('••••9876');

    // The editor's round trip: the masked value sent back keeps the secret.
    const roundTrip = await api.request('PUT', `/api/v1/credentials/${json.id}`, {
      key: acme.key,
      body: { name: 'Basic renamed', type: 'http_basic', fields: { username: 'bob', password: '••••9876' } },
    });
    expect((await readJson(roundTrip)).fields.password).toBe('••••9876');

    const audits = await api.db.admin`
      select new_values from audit_logs
      where entity_type = 'credential' and entity_id = ${json.id} and action = 'updated' order by created_at`;
    expect(audits.map((a) => (a.new_values as { secrets_changed: string[] }).secrets_changed)).toEqual([
      [],
      ['password'],
      [],
    ]);
    const stored = await everythingStoredAbout(acme.organizationId);
    expect(stored).not.toContain('first-password-1234');
    expect(stored).not.toContain('second-pass-9876');
  });

  it('refuses bad input with 422 on the field (unknown type, missing secret, header injection) and a conflict with stored ones with 409 (duplicate name, type change)', async () => {
    await expectError(
      (await create({ name: 'x', type: 'telepathy', fields: {} })).res,
      422,
      'validation_error',
    );
    const missing = await expectError(
      (await create({ name: 'x', type: 'http_bearer', fields: {} })).res,
      422,
      'validation_error',
    );
    expect(Object.keys(missing.error.fields).join()).toContain('fields.token');
    const injected = await expectError(
      (await create({ name: 'x', type: 'http_bearer', fields: { token: 'abc\r\nX-Evil: 1' } })).res,
      422,
      'validation_error',
    );
    expect(JSON.stringify(injected)).not.toContain('X-Evil');
    await expectError(
      (await create({ name: 'x', type: 'http_header', fields: { name: 'Bad Header', value: 'v' } })).res,
      422,
    );
    await expectError(
      (await create({ name: 'x', type: 'http_bearer', fields: { token: 't', extra: 1 } })).res,
      422,
    );
    const masked = await expectError(
      (await create({ name: 'x', type: 'ai_openai', fields: { api_key: '••••1234' } })).res,
      422,
    );
    expect(masked.error.fields).toHaveProperty(['fields.api_key']);
    await create({ name: 'Twice', type: 'ai_openai', fields: { api_key: 'k1' } });
    const duplicate = await expectError(
      (await create({ name: 'Twice', type: 'ai_openai', fields: { api_key: 'k2' } })).res,
      409,
      'conflict',
    );
    expect(duplicate.error.fields).toHaveProperty('name');
    const { json } = await create({ name: 'Typed', type: 'ai_openai', fields: { api_key: 'k3' } });
    const changed = await api.request('PUT', `/api/v1/credentials/${json.id}`, {
      key: acme.key,
      body: { name: 'Typed', type: 'ai_anthropic', fields: { api_key: 'k4' } },
    });
    expect((await expectError(changed, 409, 'conflict')).error.fields).toHaveProperty('type');
  });

  it('a huge body is 413, a repeated POST with one Idempotency-Key creates one credential', async () => {
    const huge = await api.request('POST', '/api/v1/credentials', {
      key: acme.key,
      body: { name: 'big', type: 'http_bearer', fields: { token: 'x'.repeat(2 * 1024 * 1024) } },
    });
    await expectError(huge, 413, 'payload_too_large');
    const body = { name: 'Once only', type: 'http_bearer', fields: { token: 'idempotent-token-1234' } };
    const send = () =>
      api.request('POST', '/api/v1/credentials', {
        key: acme.key,
        body,
        headers: { 'Idempotency-Key': 'cred-1' },
      });
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await readJson(second)).id).toBe((await readJson(first)).id);
    const [row] = await api.db.admin`select count(*)::int as n from credentials where name = 'Once only'`;
    expect(row?.n).toBe(1);
  });

  it('is invisible to another organization and needs credentials.view / credentials.manage', async () => {
    const { json } = await create({
      name: 'Private',
      type: 'ai_anthropic',
      fields: { api_key: 'secret-key-5555' },
    });
    await expectError(await api.request('GET', `/api/v1/credentials/${json.id}`, { key: globex.key }), 404);
    await expectError(
      await api.request('DELETE', `/api/v1/credentials/${json.id}`, { key: globex.key }),
      404,
    );
    const globexList = await readJson(await api.request('GET', '/api/v1/credentials', { key: globex.key }));
    expect(globexList.data).toEqual([]);

    const viewer = await api.keyFor(acme.organizationId, ['credentials.view']);
    expect((await api.request('GET', `/api/v1/credentials/${json.id}`, { key: viewer })).status).toBe(200);
    await expectError(
      (await create({ name: 'No', type: 'ai_openai', fields: { api_key: 'k' } }, viewer)).res,
      403,
    );
    const outsider = await api.keyFor(acme.organizationId, ['workflows.view']);
    await expectError(await api.request('GET', '/api/v1/credentials', { key: outsider }), 403);
  });

  it('DELETE refuses a credential a workflow uses (409), then deletes it once unused', async () => {
    const { json } = await create({ name: 'Used', type: 'http_bearer', fields: { token: TOKEN } });
    const workflow = await readJson(
      await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: {
          ...validWorkflow,
          name: 'uses a credential',
          nodes: [
            {
              id: 'call',
              type: 'action.http_request',
              config: { url: 'https://example.com/', credential_id: json.id },
            },
          ],
          edges: [],
        },
      }),
    );
    expect(workflow.id).toBeDefined();
    const refused = await expectError(
      await api.request('DELETE', `/api/v1/credentials/${json.id}`, { key: acme.key }),
      409,
    );
    expect(refused.error.message).toContain('uses a credential');
    await api.request('DELETE', `/api/v1/workflows/${workflow.id}`, { key: acme.key });
    expect((await api.request('DELETE', `/api/v1/credentials/${json.id}`, { key: acme.key })).status).toBe(
      204,
    );
    await expectError(await api.request('GET', `/api/v1/credentials/${json.id}`, { key: acme.key }), 404);
  });
});

describe('workflows that name credentials', () => {
  const httpWorkflow = (config: Record<string, unknown>) => ({
    ...validWorkflow,
    name: 'calls out',
    nodes: [{ id: 'call', type: 'action.http_request', config: { url: 'https://example.com/', ...config } }],
    edges: [],
  });

  it('refuses at save a secret header in plain config, an unknown credential and one of the wrong type', async () => {
    for (const header of ['Authorization', 'x-api-key', 'Cookie']) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: acme.key,
        body: httpWorkflow({ headers: { [header]: 'Bearer abc' } }),
      });
      const body = await expectError(res, 422, 'validation_error');
      expect(JSON.stringify(body.error.fields)).toContain('credential');
    }
    const unknown = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: httpWorkflow({ credential_id: '00000000-0000-4000-8000-000000000000' }),
    });
    expect((await expectError(unknown, 422)).error.fields).toHaveProperty(['nodes.0.config.credential_id']);

    const ai = (await create({ name: 'Not for HTTP', type: 'ai_openai', fields: { api_key: 'k' } })).json;
    const wrongType = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: httpWorkflow({ credential_id: ai.id }),
    });
    expect((await expectError(wrongType, 422)).error.fields['nodes.0.config.credential_id'][0]).toContain(
      'http_bearer',
    );

    const globexCredential = (
      await create({ name: 'Theirs', type: 'http_bearer', fields: { token: 'theirs-token-000' } }, globex.key)
    ).json;
    const foreign = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: httpWorkflow({ credential_id: globexCredential.id }),
    });
    await expectError(foreign, 422);
  });

  it('accepts a secret-holding header whose value is computed per run (an expression)', async () => {
    const res = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: httpWorkflow({ headers: { Authorization: 'Bearer {{trigger.token}}' } }),
    });
    expect(res.status).toBe(201);
  });

  it('saves a polling trigger that authenticates with a credential', async () => {
    const bearer = (await create({ name: 'Feed', type: 'http_bearer', fields: { token: 'feed-token-1234' } }))
      .json;
    const res = await api.request('POST', '/api/v1/workflows', {
      key: acme.key,
      body: {
        ...validWorkflow,
        name: 'polls',
        trigger_type: 'polling',
        trigger_config: { url: 'https://example.com/feed', interval_minutes: 5, credential_id: bearer.id },
      },
    });
    expect(res.status).toBe(201);
    expect((await readJson(res)).trigger_config.credential_id).toBe(bearer.id);
  });
});
