import { randomBytes } from 'node:crypto';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from './helpers';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
let api: TestApi;
let acme: { organizationId: string; key: string };

beforeAll(async () => {
  api = await createTestApi({ appKey: keyA });
  acme = await api.createOrg('Acme');
});
afterAll(() => api.close());

describe('a replica on a rotated key ring', () => {
  it('updates a credential sealed under the previous key (503 without APP_KEYS_PREVIOUS)', async () => {
    const created = await readJson(
      await api.request('POST', '/api/v1/credentials', {
        key: acme.key,
        body: { name: 'Stripe', type: 'http_header', fields: { name: 'X-Token', value: 'tok_under_key_a' } },
      }),
    );
    const update = { name: 'Stripe (renamed)', type: 'http_header', fields: { name: 'X-Token' } };
    // The failure the issue reports: a replica with only another key cannot keep the stored secret.
    const foreign = await api.withKeys(keyB).request('PUT', `/api/v1/credentials/${created.id}`, {
      key: acme.key,
      body: update,
    });
    // No key of B's ring opens it: an operator's fix, said as such (503), never a 500 nor the secret.
    expect(foreign.status).toBe(503);
    expect(foreign.headers.get('retry-after')).toBe('60');
    const refusal = await foreign.text();
    expect(JSON.parse(refusal)).toEqual({
      error: {
        code: 'service_unavailable',
        message: expect.stringMatching(
          /^A stored secret this request needs was sealed with an APP_KEY this server does not hold .*docs\/key-custody\.md/,
        ),
        fields: {},
        request_id: expect.any(String),
      },
    });
    expect(refusal).not.toContain('tok_under_key_a');

    const ring = api.withKeys(keyB, [keyA]);
    const updated = await ring.request('PUT', `/api/v1/credentials/${created.id}`, {
      key: acme.key,
      body: update,
    });
    expect(updated.status).toBe(200);
    expect(await readJson(updated)).toMatchObject({
      name: 'Stripe (renamed)',
      fields: { value: '••••ey_a' },
    });
    // The kept secret was re-sealed with B: B alone now opens it, on the next update too.
    const again = await api.withKeys(keyB).request('PUT', `/api/v1/credentials/${created.id}`, {
      key: acme.key,
      body: { ...update, name: 'Stripe' },
    });
    expect(again.status).toBe(200);
  });
});
