/**
 * Bad input on the chat module's routes and configs (security.md §13): every case is a clear 4xx in
 * the error envelope and stores nothing.
 */
import { createHmac } from 'node:crypto';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers';

let api: TestApi;
let org: { organizationId: string; key: string };

beforeAll(async () => {
  api = await createTestApi({ maxBodyBytes: 64 * 1024 });
  org = await api.createOrg('Acme');
  const res = await api.request('PUT', '/api/v1/modules/chat', {
    key: org.key,
    body: {
      provider: 'cloud',
      business_account_id: '102290129340398',
      phone_number_id: '106540352242922',
      access_token: 'token',
      app_secret: 'app-secret',
      verify_token: 'verify',
    },
  });
  expect(res.status).toBe(200);
});
afterAll(() => api.close());

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  api.app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const sign = (body: string) => `sha256=${createHmac('sha256', 'app-secret').update(body).digest('hex')}`;

async function nothingStored() {
  const [conversations] = await api.db.admin`select count(*)::int as n from chat_conversations`;
  const [executions] = await api.db.admin`select count(*)::int as n from executions`;
  expect([conversations?.n, executions?.n]).toEqual([0, 0]);
}

describe('inbound chat posts', () => {
  it('413 for an oversized body, 422 for one that is not JSON or not UTF-8, 404 for an unknown number', async () => {
    await expectError(await post('/api/webhooks/chat', 'x'.repeat(70 * 1024)), 413, 'payload_too_large');
    await expectError(
      await post('/api/webhooks/chat', '{"entry": [', { 'x-hub-signature-256': sign('{"entry": [') }),
      422,
    );
    const invalidUtf8 = api.app.request('/api/webhooks/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    await expectError(await invalidUtf8, 422);
    const stranger = JSON.stringify({
      entry: [{ changes: [{ value: { metadata: { phone_number_id: '999' } } }] }],
    });
    await expectError(
      await post('/api/webhooks/chat', stranger, { 'x-hub-signature-256': sign(stranger) }),
      404,
    );
    await nothingStored();
  });

  it('401 for a missing, malformed or sha1 signature', async () => {
    const body = JSON.stringify({
      entry: [{ changes: [{ value: { metadata: { phone_number_id: '106540352242922' }, messages: [] } }] }],
    });
    for (const header of [
      undefined,
      'sha256=zz',
      `sha1=${createHmac('sha1', 'app-secret').update(body).digest('hex')}`,
    ]) {
      await expectError(
        await post('/api/webhooks/chat', body, header ? { 'x-hub-signature-256': header } : {}),
        401,
      );
    }
    await nothingStored();
  });

  it('gateway posts: 404 without a matching account, 401 without a valid signature', async () => {
    const form = new URLSearchParams({
      AccountSid: `AC${'0'.repeat(32)}`,
      To: 'whatsapp:+14155238886',
      Body: 'x',
    });
    const res = await api.app.request('/api/webhooks/chat/gateway', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bogus' },
      body: form.toString(),
    });
    await expectError(res, 404);
    await nothingStored();
  });
});

describe('chat node configs at save', () => {
  it('refuses template names with path or control characters and malformed languages', async () => {
    for (const config of [
      { to: '+14155550100', template_name: '../../etc/passwd', language: 'en_US' },
      { to: '+14155550100', template_name: 'hello world', language: 'en_US' },
      { to: '+14155550100', template_name: 'welcome', language: 'english' },
    ]) {
      const res = await api.request('POST', '/api/v1/workflows', {
        key: org.key,
        body: {
          name: 'bad template',
          trigger_type: 'manual',
          nodes: [{ id: 'tpl', type: 'action.chat.send_template', config }],
        },
      });
      await expectError(res, 422, 'validation_error');
    }
    const fallback = await api.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: {
        name: 'bad fallback',
        trigger_type: 'manual',
        nodes: [
          {
            id: 'send',
            type: 'action.chat.send',
            config: { to: '+14155550100', message: 'x', fallback_template: 'a/b' },
          },
        ],
      },
    });
    await expectError(fallback, 422, 'validation_error');
  });

  it('answers 409, not 500, when the provider cannot be reached for a template sync', async () => {
    // No provider is reachable from the tests (the default cloud URL, no network or refused):
    // before, the outbound client's error escaped as 500 internal_error.
    const res = await api.request('POST', '/api/v1/chat/templates/sync', { key: org.key });
    const body = await expectError(res, 409, 'conflict');
    expect(body.error.message).toMatch(/chat provider (could not be reached|refused)/);
  });

  it('never answers a module secret, in GET or in the audit trail', async () => {
    const got = await api.request('GET', '/api/v1/modules/chat', { key: org.key });
    const text = await got.text();
    for (const secret of ['app-secret', '"token"', 'verify"']) expect(text).not.toContain(secret);
    const audit = await api.request('GET', '/api/v1/audit-logs?entity_type=module', { key: org.key });
    const auditText = await audit.text();
    expect(audit.status).toBe(200);
    expect(auditText).not.toContain('app-secret');
  });
});
