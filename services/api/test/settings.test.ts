import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

let api: TestApi;

beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

describe('GET /settings', () => {
  it('answers the defaults before anything was changed', async () => {
    const org = await api.createOrg('Defaults');
    const res = await api.request('GET', '/api/v1/settings', { key: org.key });
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ cart_inactivity_minutes: 60, updated_at: null });
  });

  it('needs settings.view (403 otherwise) and no API key is 401', async () => {
    const org = await api.createOrg('Guarded');
    const viewer = await api.keyFor(org.organizationId, ['settings.view']);
    const other = await api.keyFor(org.organizationId, ['workflows.view']);
    expect((await api.request('GET', '/api/v1/settings', { key: viewer })).status).toBe(200);
    await expectError(await api.request('GET', '/api/v1/settings', { key: other }), 403, 'forbidden');
    await expectError(await api.request('GET', '/api/v1/settings'), 401, 'unauthenticated');
  });
});

describe('PUT /settings', () => {
  it('changes cart_inactivity_minutes for this organization only, and audit logs it', async () => {
    const org = await api.createOrg('Changer');
    const neighbour = await api.createOrg('Neighbour');
    const res = await api.request('PUT', '/api/v1/settings', {
      key: org.key,
      body: { cart_inactivity_minutes: 15 },
    });
    const body = await readJson(res);
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.cart_inactivity_minutes).toBe(15);
    expect(Date.parse(body.updated_at)).not.toBeNaN();

    const again = await readJson(await api.request('GET', '/api/v1/settings', { key: org.key }));
    expect(again.cart_inactivity_minutes).toBe(15);
    const theirs = await readJson(await api.request('GET', '/api/v1/settings', { key: neighbour.key }));
    expect(theirs.cart_inactivity_minutes).toBe(60);

    const audit = await readJson(
      await api.request('GET', '/api/v1/audit-logs?entity_type=settings', { key: org.key }),
    );
    const entry = audit.data.find((e: any) => e.entity_type === 'settings');
    expect(entry).toMatchObject({
      action: 'updated',
      entity_id: org.organizationId,
      old_values: { cart_inactivity_minutes: 60 },
      new_values: { cart_inactivity_minutes: 15 },
    });
  });

  it('422 with the field for out-of-range, fractional, textual or unknown values; nothing stored', async () => {
    const org = await api.createOrg('Validator');
    const bad: [unknown, string][] = [
      [{ cart_inactivity_minutes: 0 }, 'cart_inactivity_minutes'],
      [{ cart_inactivity_minutes: 43_201 }, 'cart_inactivity_minutes'],
      [{ cart_inactivity_minutes: 1.5 }, 'cart_inactivity_minutes'],
      [{ cart_inactivity_minutes: '15' }, 'cart_inactivity_minutes'],
      [{ cart_inactivity_minutes: null }, 'cart_inactivity_minutes'],
      [{ unknown_setting: 1 }, '_'],
    ];
    for (const [body, field] of bad) {
      const res = await api.request('PUT', '/api/v1/settings', { key: org.key, body });
      const error = await expectError(res, 422, 'validation_error');
      expect(Object.keys(error.error.fields), JSON.stringify(body)).toContain(field);
    }
    await expectError(
      await api.request('PUT', '/api/v1/settings', { key: org.key, body: '{"cart_inactivity_minutes": ' }),
      422,
      'validation_error',
    );
    const [row] = await api.db.admin`
      select count(*)::int as n from organization_settings where organization_id = ${org.organizationId}`;
    expect(row?.n).toBe(0);
  });

  it('accepts the bounds 1 and 43200', async () => {
    const org = await api.createOrg('Bounds');
    for (const minutes of [1, 43_200]) {
      const res = await api.request('PUT', '/api/v1/settings', {
        key: org.key,
        body: { cart_inactivity_minutes: minutes },
      });
      expect((await readJson(res)).cart_inactivity_minutes).toBe(minutes);
    }
  });

  it('needs settings.manage: settings.view alone is 403', async () => {
    const org = await api.createOrg('Read only');
    const viewer = await api.keyFor(org.organizationId, ['settings.view']);
    await expectError(
      await api.request('PUT', '/api/v1/settings', { key: viewer, body: { cart_inactivity_minutes: 5 } }),
      403,
      'forbidden',
    );
  });
});
