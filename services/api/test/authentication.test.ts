import { crc32 } from 'node:zlib';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(value: number, width: number) {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}
/** A well-formed key (right prefix, length and checksum) that was never issued. */
function wellFormedUnknownKey() {
  let body = '';
  for (let i = 0; i < 40; i++) body += ALPHABET[Math.floor(Math.random() * 62)];
  return `weft_${body}${base62(crc32(body), 6)}`;
}

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
});
afterAll(() => api.close());

const get = (headers: Record<string, string>) => api.request('GET', '/api/v1/workflows', { headers });

describe('API authentication', () => {
  it('accepts the key in X-Api-Key', async () => {
    const res = await get({ 'X-Api-Key': acme.key });
    expect(res.status).toBe(200);
    expect((await readJson(res)).data).toEqual([]);
  });

  it('accepts the key as Authorization: Bearer', async () => {
    expect((await get({ Authorization: `Bearer ${acme.key}` })).status).toBe(200);
  });

  it('accepts a lower-case bearer scheme (auth schemes are case-insensitive, RFC 9110 §11.1)', async () => {
    expect((await get({ Authorization: `bearer ${acme.key}` })).status).toBe(200);
    expect((await get({ Authorization: `BEARER ${acme.key}` })).status).toBe(200);
  });

  it('answers 401 with the error envelope when no key is sent', async () => {
    const body = await expectError(await get({}), 401, 'unauthenticated');
    expect(body.error.fields).toEqual({});
  });

  it('answers 401 for an empty or malformed credential', async () => {
    const cases: Record<string, string>[] = [
      { Authorization: 'Bearer ' },
      { Authorization: 'Bearer' },
      { Authorization: acme.key }, // no scheme
      { Authorization: `Basic ${Buffer.from(`x:${acme.key}`).toString('base64')}` },
      { Authorization: `Token ${acme.key}` },
      { Authorization: `Bearer ${acme.key} extra` },
      { 'X-Api-Key': '' },
      { 'X-Api-Key': 'not-a-key' },
      { 'X-Api-Key': 'weft_' },
      { 'X-Api-Key': acme.key.slice(0, -1) }, // one character short
      { 'X-Api-Key': `${acme.key}x` }, // one character long
      { 'X-Api-Key': acme.key.toUpperCase() },
      { 'X-Api-Key': `wEft_${acme.key.slice(5)}` },
      { 'X-Api-Key': "weft_' OR 1=1 --" },
    ];
    for (const headers of cases) {
      await expectError(await get(headers), 401, 'unauthenticated');
    }
  });

  it('answers 401 for the right prefix and length with a wrong checksum', async () => {
    const body = acme.key.slice(5, 45);
    const checksum = acme.key.slice(45);
    const wrongChecksum = checksum === '000000' ? '000001' : '000000';
    const flipped = `weft_${body}${wrongChecksum}`;
    expect(flipped).toMatch(/^weft_[0-9A-Za-z]{46}$/);
    await expectError(await get({ 'X-Api-Key': flipped }), 401, 'unauthenticated');
    // A changed body character with the old checksum is refused too.
    const changed = `weft_${body[0] === 'a' ? 'b' : 'a'}${body.slice(1)}${checksum}`;
    await expectError(await get({ 'X-Api-Key': changed }), 401, 'unauthenticated');
  });

  it('answers 401 for a well-formed key that was never issued', async () => {
    const unknown = wellFormedUnknownKey();
    await expectError(await get({ 'X-Api-Key': unknown }), 401, 'unauthenticated');
    await expectError(await get({ Authorization: `Bearer ${unknown}` }), 401, 'unauthenticated');
  });

  it('answers 401 for a revoked key, in both header forms', async () => {
    const key = await api.keyFor(acme.organizationId, ['workflows.view']);
    expect((await get({ 'X-Api-Key': key })).status).toBe(200);
    const [row] = await api.db
      .admin`select id from api_keys where key_hint = ${`${key.slice(0, 9)}…${key.slice(-4)}`}`;
    const revoke = await api.request('POST', `/api/v1/api-keys/${row?.id}/revoke`, { key: acme.key });
    expect(revoke.status).toBe(200);
    await expectError(await get({ 'X-Api-Key': key }), 401, 'unauthenticated');
    await expectError(await get({ Authorization: `Bearer ${key}` }), 401, 'unauthenticated');
  });

  it('does not take the key from the query string', async () => {
    const res = await api.request('GET', `/api/v1/workflows?api_key=${acme.key}&key=${acme.key}`);
    await expectError(res, 401, 'unauthenticated');
  });

  it('refuses unauthenticated writes before touching any data', async () => {
    const before = await api.db.admin`select count(*)::int as n from workflows`;
    const res = await api.request('POST', '/api/v1/workflows', {
      body: { name: 'anon', trigger_type: 'manual' },
    });
    await expectError(res, 401, 'unauthenticated');
    const after = await api.db.admin`select count(*)::int as n from workflows`;
    expect(after[0]?.n).toBe(before[0]?.n);
  });

  it('requires a key on every route except the public docs and health endpoints', async () => {
    const id = '0190b6a4-1111-7222-8333-444455556666';
    const routes: [string, string][] = [
      ['GET', '/api/v1/workflows'],
      ['POST', '/api/v1/workflows'],
      ['GET', `/api/v1/workflows/${id}`],
      ['PUT', `/api/v1/workflows/${id}`],
      ['DELETE', `/api/v1/workflows/${id}`],
      ['GET', '/api/v1/api-keys'],
      ['POST', '/api/v1/api-keys'],
      ['POST', `/api/v1/api-keys/${id}/revoke`],
      ['GET', '/api/v1/audit-logs'],
      ['GET', '/api/v1/node-types'],
    ];
    for (const [method, path] of routes) {
      const res = await api.request(method, path, {
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      await expectError(res, 401, 'unauthenticated');
    }
    for (const path of ['/api/v1/openapi.json', '/api/v1/docs', '/healthz', '/readyz']) {
      expect((await api.request('GET', path)).status, path).toBe(200);
    }
  });

  it('a wrong permission is 403 forbidden, not 401', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    const res = await api.request('DELETE', '/api/v1/workflows/0190b6a4-1111-7222-8333-444455556666', {
      key: viewer,
    });
    await expectError(res, 403, 'forbidden');
  });
});
