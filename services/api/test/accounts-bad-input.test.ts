import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Bad input on the routes the web app added: a clear 4xx in the error envelope, naming the field,
// and nothing changed; another organization's ids are 404; a repeated POST replays.

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

beforeAll(async () => {
  api = await createTestApi({ maxBodyBytes: 64 * 1024 });
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api?.close());

async function send(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await api.request(method, `/api/v1${path}`, options);
  const body = (await res.json()) as {
    error?: { code: string; message: string; fields: Record<string, string[]> };
  };
  return { status: res.status, body };
}

describe('bad input on the account and people routes', () => {
  it.each([
    ['PATCH', '/users/not-a-uuid', { role: 'viewer' }],
    ['DELETE', '/users/not-a-uuid', undefined],
    ['DELETE', '/invitations/not-a-uuid', undefined],
    ['POST', '/webhooks/not-a-uuid/test', undefined],
    ['GET', '/workflows/not-a-uuid/versions', undefined],
  ])('%s %s: an id that is not a UUID is a 422 naming id', async (method, path, body) => {
    const res = await send(method, path, { key: acme.key, body });
    expect(res.status).toBe(422);
    expect(res.body.error?.fields).toHaveProperty('id');
  });

  it.each([
    ['/auth/login', { email: ['x'], password: 1 }, 'email'],
    [
      '/auth/setup',
      { organization_name: 'A', name: 'B', email: 'not-mail', password: 'long enough pw' },
      'email',
    ],
    ['/auth/register', { name: 'B', email: 'b@example.test', password: 'short' }, 'password'],
    ['/auth/reset-password', {}, 'token'],
    ['/auth/forgot-password', { email: 42 }, 'email'],
    ['/auth/login/two-factor', { code: '1', recovery_code: '2' }, 'code'],
  ])('POST %s with wrong types or missing fields: 422 on the field', async (path, body, field) => {
    const res = await send('POST', path, { body });
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe('validation_error');
    expect(res.body.error?.fields).toHaveProperty(field);
  });

  it('malformed JSON, a non-JSON body and a huge body are refused before anything runs', async () => {
    const malformed = await send('POST', '/auth/login', {
      body: '{bad',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(422);
    const text = await send('POST', '/auth/setup', {
      body: 'name=x',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(422);
    const huge = await send('POST', '/auth/setup', {
      body: {
        organization_name: 'x'.repeat(100_000),
        name: 'A',
        email: 'a@example.test',
        password: 'long enough pw',
      },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe('payload_too_large');
    const [users] = await api.db.admin`select count(*)::int as n from users`;
    expect(users?.n).toBe(0);
  });

  it('an unknown role, and account routes called with an API key, are refused', async () => {
    const invite = await send('POST', '/invitations', {
      key: acme.key,
      body: { email: 'x@example.test', role: 'boss' },
    });
    expect(invite.status).toBe(422);
    expect(invite.body.error?.fields).toHaveProperty('role');
    const password = await send('POST', '/me/password', {
      key: acme.key,
      body: { current_password: 'x', new_password: 'yyyyyyyyy' },
    });
    expect(password.status).toBe(403);
  });

  it("another organization's member and invitation ids are 404 and change nothing", async () => {
    const created = await send('POST', '/invitations', {
      key: globex.key,
      body: { email: 'g@example.test', role: 'viewer' },
    });
    expect(created.status).toBe(201);
    const theirs = (created.body as unknown as { id: string }).id;
    expect((await send('DELETE', `/invitations/${theirs}`, { key: acme.key })).status).toBe(404);
    const [still] = await api.db.admin`select count(*)::int as n from invitations where id = ${theirs}`;
    expect(still?.n).toBe(1);
    const [member] = await api.db.admin`insert into users (id, email, password_hash)
      values (gen_random_uuid(), 'gm@example.test', 'x') returning id`;
    await api.db.admin`insert into memberships (id, organization_id, user_id, role)
      values (gen_random_uuid(), ${globex.organizationId}, ${member?.id}, 'viewer')`;
    expect(
      (await send('PATCH', `/users/${member?.id}`, { key: acme.key, body: { role: 'admin' } })).status,
    ).toBe(404);
    expect((await send('DELETE', `/users/${member?.id}`, { key: acme.key })).status).toBe(404);
    const [role] = await api.db.admin`select role from memberships where user_id = ${member?.id}`;
    expect(role?.role).toBe('viewer');
  });

  it('a repeated invitation with the same Idempotency-Key replays instead of inviting twice', async () => {
    const headers = { 'Idempotency-Key': 'invite-once' };
    const first = await api.request('POST', '/api/v1/invitations', {
      key: acme.key,
      body: { email: 'twice@example.test', role: 'viewer' },
      headers,
    });
    const second = await api.request('POST', '/api/v1/invitations', {
      key: acme.key,
      body: { email: 'twice@example.test', role: 'viewer' },
      headers,
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const [rows] = await api.db
      .admin`select count(*)::int as n from invitations where email = 'twice@example.test'`;
    expect(rows?.n).toBe(1);
  });
});
