import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let api: TestApi;
let key: string;

beforeAll(async () => {
  api = await createTestApi();
  ({ key } = await api.createOrg('Acme'));
  for (const [name, trigger_type, trigger_config] of [
    ['on order', 'event', { event: 'order.created' }],
    ['by hand', 'manual', {}],
    ['nightly', 'schedule', { cron: '0 3 * * *', timezone: 'UTC' }],
  ] as const) {
    const res = await api.request('POST', '/api/v1/workflows', {
      key,
      body: { name, trigger_type, trigger_config },
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }
});
afterAll(() => api?.close());

describe('GET /workflows?trigger_type=', () => {
  it('lists only the workflows of that trigger type and keeps the filter in the page links', async () => {
    const res = await api.request('GET', '/api/v1/workflows?trigger_type=schedule&per_page=1', { key });
    const body = (await res.json()) as { data: { name: string }[]; links: { first: string } };
    expect(body.data.map((w) => w.name)).toEqual(['nightly']);
    expect(body.links.first).toContain('trigger_type=schedule');
  });

  it('refuses an unknown trigger type with 422', async () => {
    const res = await api.request('GET', '/api/v1/workflows?trigger_type=carrier-pigeon', { key });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { fields: object } }).error.fields).toHaveProperty('trigger_type');
  });
});
