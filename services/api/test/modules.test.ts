import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

const CLOUD = {
  provider: 'cloud',
  business_account_id: '102290129340398',
  phone_number_id: '106540352242922',
  access_token: 'EAAG-access-token-0001',
  app_secret: 'app-secret-value-0002',
  verify_token: 'verify-token-value-0003',
};

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

const put = (name: string, body: unknown, key = acme.key) =>
  api.request('PUT', `/api/v1/modules/${name}`, { key, body });
const get = (name: string, key = acme.key) => api.request('GET', `/api/v1/modules/${name}`, { key });

async function storedAbout(organizationId: string) {
  const modules = await api.db
    .admin`select * from organization_modules where organization_id = ${organizationId}`;
  const audit = await api.db
    .admin`select old_values, new_values from audit_logs where organization_id = ${organizationId}`;
  return JSON.stringify({ modules, audit });
}

describe('module configuration', () => {
  it('stores the chat config with its secrets encrypted and answers them masked', async () => {
    await expectError(await get('chat'), 404, 'not_found');
    const res = await put('chat', CLOUD);
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body.config).toEqual({
      provider: 'cloud',
      business_account_id: CLOUD.business_account_id,
      phone_number_id: CLOUD.phone_number_id,
      access_token: '••••0001',
      app_secret: '••••0002',
      verify_token: '••••0003',
    });
    expect(await readJson(await get('chat'))).toEqual(body);
    const stored = await storedAbout(acme.organizationId);
    for (const secret of [CLOUD.access_token, CLOUD.app_secret, CLOUD.verify_token]) {
      expect(stored).not.toContain(secret);
    }
  });

  it('keeps a left-out secret on the same provider, needs all of them for another provider', async () => {
    const { access_token: _a, app_secret: _s, verify_token: _v, ...publicOnly } = CLOUD;
    const kept = await put('chat', { ...publicOnly, phone_number_id: '999' });
    expect(kept.status).toBe(200);
    expect((await readJson(kept)).config).toMatchObject({ phone_number_id: '999', access_token: '••••0001' });

    const switched = await put('chat', { provider: 'gateway', from_number: 'whatsapp:+14155238886' });
    const error = await expectError(switched, 422, 'validation_error');
    expect(Object.keys(error.error.fields).sort()).toEqual(['account_sid', 'auth_token']);

    const gateway = await put('chat', {
      provider: 'gateway',
      account_sid: `AC${'a'.repeat(32)}`,
      auth_token: 'gateway-auth-token-4444',
      from_number: 'whatsapp:+14155238886',
    });
    expect((await readJson(gateway)).config).toEqual({
      provider: 'gateway',
      account_sid: `AC${'a'.repeat(32)}`,
      auth_token: '••••4444',
      from_number: 'whatsapp:+14155238886',
    });
  });

  it('validates each module per field: e-mail security none needs allow_insecure; ai needs a URL', async () => {
    const insecure = await put('email', {
      host: 'smtp.example.com',
      port: 25,
      security: 'none',
      from_email: 'ops@example.com',
    });
    expect((await expectError(insecure, 422)).error.fields).toHaveProperty('security');
    const ok = await put('email', {
      host: 'smtp.example.com',
      port: 25,
      security: 'none',
      allow_insecure: true,
      username: 'ops',
      password: 'smtp-password-5555',
      from_email: 'ops@example.com',
    });
    expect((await readJson(ok)).config).toMatchObject({ password: '••••5555', username: 'ops' });
    const ai = {
      provider: 'openai',
      base_url: 'https://api.openai.com/v1',
      api_key: 'sk-ai-key-7777',
      default_model: 'm',
    };
    expect((await put('ai', ai)).status).toBe(200);
    // Sent back masked: kept. Pointed elsewhere without the key: the key does not follow (422).
    expect((await readJson(await put('ai', { ...ai, api_key: '••••7777' }))).config.api_key).toBe('••••7777');
    const moved = await put('ai', {
      provider: 'openai',
      base_url: 'https://elsewhere.example/v1',
      default_model: 'm',
    });
    expect((await expectError(moved, 422)).error.fields).toHaveProperty('api_key');
    const badAi = await put('ai', {
      provider: 'openai',
      base_url: 'file:///etc',
      api_key: 'k',
      default_model: 'm',
    });
    expect((await expectError(badAi, 422)).error.fields).toHaveProperty('base_url');
    const unknownField = await put('ai', {
      provider: 'openai',
      base_url: 'https://api.openai.com/v1',
      api_key: 'k',
      default_model: 'gpt-4o-mini',
      organization: 'x',
    });
    await expectError(unknownField, 422);
    await expectError(await put('courier', {}), 404, 'not_found');
    await expectError(await put('chat', { provider: 'carrier-pigeon' }), 422);
  });

  it('is per organization and needs modules.view / modules.manage; DELETE removes it', async () => {
    await expectError(await get('chat', globex.key), 404);
    const viewer = await api.keyFor(acme.organizationId, ['modules.view']);
    expect((await get('chat', viewer)).status).toBe(200);
    await expectError(await put('chat', CLOUD, viewer), 403);
    const outsider = await api.keyFor(acme.organizationId, ['workflows.view']);
    await expectError(await get('chat', outsider), 403);

    const removed = await api.request('DELETE', '/api/v1/modules/chat', { key: acme.key });
    expect(removed.status).toBe(204);
    await expectError(await get('chat'), 404);
    await expectError(await api.request('DELETE', '/api/v1/modules/chat', { key: acme.key }), 404);
  });
});
