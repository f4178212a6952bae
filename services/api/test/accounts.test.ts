import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@weft/telemetry';
import { createTestApi, type TestApi } from '@weft/testing';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForRoomInMinute } from './helpers';

// Sign-in, sessions, CSRF, roles, two-factor, password reset and invitations against a real
// PostgreSQL, through the same /api/v1 the browser uses. Each test speaks from its own client IP
// (TRUST_PROXY_HOPS=1) so the 5-per-minute limits of one test do not touch another.

let api: TestApi;
/** The app's log lines, as written. */
const logLines: string[] = [];
let ipSeq = 0;
const newIp = () => `198.51.100.${++ipSeq}`;
/** expect.poll waits 1 s by default: too short for a busy machine. Bounded by the test's timeout. */
const POLL = { timeout: 30_000 };

const ADMIN = { email: 'ada@example.test', password: 'correct horse battery staple', name: 'Ada' };

beforeAll(async () => {
  api = await createTestApi({
    env: { TRUST_PROXY_HOPS: 1 },
    logger: createLogger({ level: 'warn', destination: { write: (line: string) => logLines.push(line) } }),
  });
});
afterAll(() => api?.close());

/** A browser: keeps the session cookie and the CSRF token, and speaks from one IP. */
class Browser {
  cookie = '';
  csrf = '';
  constructor(readonly ip = newIp()) {}

  async call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { 'X-Forwarded-For': this.ip, ...extra };
    if (this.cookie) headers.Cookie = this.cookie;
    if (this.csrf && method !== 'GET') headers['X-CSRF-Token'] = this.csrf;
    const res = await api.request(method, `/api/v1${path}`, { body, headers });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const value = /weft_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
      this.cookie = value ? `weft_session=${value}` : '';
    }
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    if (json?.csrf_token) this.csrf = json.csrf_token;
    return { status: res.status, body: json, headers: res.headers };
  }

  async login(email: string, password: string) {
    return this.call('POST', '/auth/login', { email, password });
  }
}

async function install(browser = new Browser()) {
  const res = await browser.call('POST', '/auth/setup', {
    organization_name: 'Acme',
    name: ADMIN.name,
    email: ADMIN.email,
    password: ADMIN.password,
  });
  return { res, browser };
}

describe('installation wizard', () => {
  it('is open before any user exists, creates one admin from racing posts, then closes for good', async () => {
    const anon = new Browser();
    expect((await anon.call('GET', '/auth/config')).body).toMatchObject({ installation_open: true });
    const racers = await Promise.all([install(), install(), install()]);
    const statuses = racers.map((r) => r.res.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    const [users] = await api.db.admin`select count(*)::int as n from users`;
    expect(users?.n).toBe(1);
    const [orgs] = await api.db.admin`select count(*)::int as n from organizations`;
    expect(orgs?.n).toBe(1);
    expect((await anon.call('GET', '/auth/config')).body).toMatchObject({ installation_open: false });
    const again = await install();
    expect(again.res.status).toBe(409);
    expect(again.res.body.error.code).toBe('conflict');

    const winner = racers.find((r) => r.res.status === 201) as (typeof racers)[number];
    const me = await winner.browser.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: ADMIN.email, organization: { name: 'Acme', role: 'admin' } });
    expect(me.body.permissions).toEqual(['*']);
  });
});

describe('sign-in', () => {
  it('sets an HttpOnly SameSite=Lax cookie, rotates the session id and answers one message for every failure', async () => {
    const b = new Browser();
    const first = await b.login(ADMIN.email, ADMIN.password);
    expect(first.status).toBe(200);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/); // APP_URL is http here
    const firstCookie = b.cookie;
    await b.login(ADMIN.email, ADMIN.password);
    expect(b.cookie).not.toBe(firstCookie);

    const wrongBrowser = new Browser();
    const wrong = await wrongBrowser.login(ADMIN.email, 'not the password');
    const unknown = await new Browser().login('nobody@example.test', 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    // One answer for both (each names its own request).
    const withoutId = (body: any) => ({ error: { ...body.error, request_id: undefined } });
    expect(withoutId(wrong.body)).toEqual(withoutId(unknown.body));
    // The failed attempt is recorded just after the answer (so it costs the answer no time).
    const failedRows = () => api.db.admin`select * from audit_logs where action = 'login_failed'`;
    await expect.poll(async () => (await failedRows()).length, POLL).toBe(1);
    const failed = await failedRows();
    expect(failed[0]?.ip_address).toBe(wrongBrowser.ip);
    expect(failed[0]?.user_id).toBeTruthy();
  });

  it('takes about as long for an unknown e-mail as for a wrong password', async () => {
    const time = async (email: string) => {
      const start = performance.now();
      await new Browser().login(email, 'not the password at all');
      return performance.now() - start;
    };
    await time(ADMIN.email); // warm both paths
    await time('warm@example.test');
    // Interleaved, and compared by their medians: a busy machine slows single samples, not the middle.
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time(ADMIN.email));
      unknown.push(await time(`x${i}@example.test`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    // Both pay for one password hash; without the dummy hash the unknown one would be ~0.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it('refuses the 6th attempt in a minute from one address with 429 and Retry-After', async () => {
    // The six attempts must fall in one window (a calendar minute): room for a busy machine.
    await waitForRoomInMinute(api.db.admin, 20);
    const b = new Browser();
    for (let i = 0; i < 5; i++) expect((await b.login(ADMIN.email, 'wrong password')).status).toBe(401);
    const sixth = await b.login(ADMIN.email, ADMIN.password);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(sixth.body.error.code).toBe('rate_limited');
    // Another address is not affected.
    expect((await new Browser().login(ADMIN.email, ADMIN.password)).status).toBe(200);
  }, 60_000);

  it('refuses a cross-site sign-in post', async () => {
    const res = await new Browser().call(
      'POST',
      '/auth/login',
      { email: ADMIN.email, password: ADMIN.password },
      { Origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
  });
});

describe('CSRF and sessions', () => {
  it('refuses a state-changing request without the CSRF token and changes nothing', async () => {
    const b = new Browser();
    await b.login(ADMIN.email, ADMIN.password);
    const token = b.csrf;
    b.csrf = '';
    const body = { name: 'csrf probe', trigger_type: 'manual', nodes: [], edges: [] };
    const refused = await b.call('POST', '/workflows', body);
    expect(refused.status).toBe(403);
    const wrong = await b.call('POST', '/workflows', body, { 'X-CSRF-Token': `${token}x` });
    expect(wrong.status).toBe(403);
    const [count] = await api.db.admin`select count(*)::int as n from workflows where name = 'csrf probe'`;
    expect(count?.n).toBe(0);
    b.csrf = token;
    expect((await b.call('POST', '/workflows', body)).status).toBe(201);
    // Reads need no token.
    b.csrf = '';
    expect((await b.call('GET', '/workflows')).status).toBe(200);
  });

  it('a token from one session does not work for another', async () => {
    const one = new Browser();
    const two = new Browser();
    await one.login(ADMIN.email, ADMIN.password);
    await two.login(ADMIN.email, ADMIN.password);
    two.csrf = one.csrf;
    expect((await two.call('POST', '/me/organization', { organization_id: 'x' })).status).toBe(403);
  });

  it('logout ends the session on the server; sign out everywhere ends them all', async () => {
    const a = new Browser();
    const b = new Browser();
    await a.login(ADMIN.email, ADMIN.password);
    await b.login(ADMIN.email, ADMIN.password);
    const stolen = a.cookie;
    expect((await a.call('POST', '/auth/logout')).status).toBe(200);
    const replay = new Browser();
    replay.cookie = stolen;
    expect((await replay.call('GET', '/me')).status).toBe(401);
    const list = await b.call('GET', '/me/sessions');
    expect(list.body.data.some((s: { current: boolean }) => s.current)).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(b.cookie.split('=')[1]);
    expect((await b.call('POST', '/me/sessions/end-all')).status).toBe(200);
    expect((await b.call('GET', '/me')).status).toBe(401);
    const [left] = await api.db
      .admin`select count(*)::int as n from web_sessions s join users u on u.id = s.user_id
      where u.email = ${ADMIN.email}`;
    expect(left?.n).toBe(0);
  });

  it('an idle session ends after SESSION_LIFETIME', async () => {
    const b = new Browser();
    await b.login(ADMIN.email, ADMIN.password);
    await api.db.admin`update web_sessions set last_seen_at = now() - interval '121 minutes'`;
    expect((await b.call('GET', '/me')).status).toBe(401);
  });

  it('stores only a hash of the session token', async () => {
    const b = new Browser();
    await b.login(ADMIN.email, ADMIN.password);
    const token = decodeURIComponent(b.cookie.split('=')[1] ?? '');
    const rows = await api.db.admin`select count(*)::int as n from web_sessions where token_hash = ${token}`;
    expect(rows[0]?.n).toBe(0);
  });
});

/** The current TOTP code of an otpauth secret, `steps` periods from now. */
const totp = (secret: string, steps = 0) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

describe('two-factor', () => {
  const USER = { email: 'tess@example.test', password: 'two factor passphrase' };
  let secret = '';
  let recovery: string[] = [];

  it('turns on with a QR secret and a confirming code, and answers 8 recovery codes once', async () => {
    const admin = new Browser();
    await admin.login(ADMIN.email, ADMIN.password);
    const invite = await admin.call('POST', '/invitations', { email: USER.email, role: 'editor' });
    expect(invite.status).toBe(201);
    const token = decodeURIComponent(invite.body.invite_url.split('/invite/')[1]);
    const tess = new Browser();
    expect(
      (
        await tess.call('POST', `/auth/invitations/${token}/accept`, {
          password: USER.password,
          name: 'Tess',
        })
      ).status,
    ).toBe(200);

    const setup = await tess.call('POST', '/me/two-factor/setup');
    expect(setup.status).toBe(200);
    secret = setup.body.secret;
    expect(setup.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/Weft:tess%40example\.test\?/);
    const stored = await api.db.admin`select totp_secret_ciphertext from users where email = ${USER.email}`;
    expect(stored[0]?.totp_secret_ciphertext).not.toContain(secret);

    const bad = await tess.call('POST', '/me/two-factor/confirm', { code: '000000' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.code).toBeDefined();
    const ok = await tess.call('POST', '/me/two-factor/confirm', { code: await totp(secret, -1) });
    expect(ok.status).toBe(200);
    recovery = ok.body.recovery_codes;
    expect(recovery).toHaveLength(8);
    const [row] = await api.db.admin`select recovery_code_hashes from users where email = ${USER.email}`;
    expect(JSON.stringify(row?.recovery_code_hashes)).not.toContain(recovery[0]?.replace('-', ''));
    expect((await tess.call('GET', '/me')).body.two_factor_enabled).toBe(true);
  });

  it('signing in then owes a code; the half session grants nothing; a code is never accepted twice', async () => {
    const b = new Browser();
    const step1 = await b.login(USER.email, USER.password);
    expect(step1.body.two_factor_required).toBe(true);
    expect((await b.call('GET', '/me')).status).toBe(401);
    expect((await b.call('GET', '/workflows')).status).toBe(401);
    const halfCookie = b.cookie;
    const wrong = await b.call('POST', '/auth/login/two-factor', { code: '123456' });
    expect(wrong.status).toBe(422);
    const code = await totp(secret);
    const done = await b.call('POST', '/auth/login/two-factor', { code });
    expect(done.status).toBe(200);
    expect(b.cookie).not.toBe(halfCookie); // rotated at completion
    expect((await b.call('GET', '/me')).status).toBe(200);

    // The same code (and an older one) again, from another browser: refused.
    const c = new Browser();
    await c.login(USER.email, USER.password);
    expect((await c.call('POST', '/auth/login/two-factor', { code })).status).toBe(422);
    expect((await c.call('POST', '/auth/login/two-factor', { code: await totp(secret, -1) })).status).toBe(
      422,
    );
    const failed = await api.db
      .admin`select count(*)::int as n from audit_logs where action = 'two_factor_failed'`;
    expect(failed[0]?.n).toBeGreaterThanOrEqual(3);
  });

  it('a recovery code signs in once', async () => {
    const b = new Browser();
    await b.login(USER.email, USER.password);
    expect((await b.call('POST', '/auth/login/two-factor', { recovery_code: recovery[0] })).status).toBe(200);
    const again = new Browser();
    await again.login(USER.email, USER.password);
    expect((await again.call('POST', '/auth/login/two-factor', { recovery_code: recovery[0] })).status).toBe(
      422,
    );
    const [row] = await api.db
      .admin`select cardinality(recovery_code_hashes) as n from users where email = ${USER.email}`;
    expect(row?.n).toBe(7);
  });

  it('turning it off needs a current code', async () => {
    const b = new Browser();
    await b.login(USER.email, USER.password);
    await b.call('POST', '/auth/login/two-factor', { recovery_code: recovery[1] });
    expect((await b.call('POST', '/me/two-factor/disable', { code: '999999' })).status).toBe(422);
    // A recovery code as printed (17 characters with its dash) is accepted too: one already used is
    // refused as invalid (not as too long), an unused one turns two-factor off.
    const used = await b.call('POST', '/me/two-factor/disable', { code: recovery[0] });
    expect(used.status).toBe(422);
    expect(used.body.error.fields.code).toEqual(['That code is not valid.']);
    expect((await b.call('GET', '/me')).body.two_factor_enabled).toBe(true);
    expect(recovery[2]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}$/);
    expect((await b.call('POST', '/me/two-factor/disable', { code: recovery[2] })).status).toBe(200);
    expect((await b.call('GET', '/me')).body.two_factor_enabled).toBe(false);
    const actions = await api.db
      .admin`select action from audit_logs where action like 'two_factor_%' order by created_at`;
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(['two_factor_enabled', 'two_factor_disabled']),
    );
  });
});

describe('roles', () => {
  it('a viewer reads but cannot edit; an editor cannot manage keys or people', async () => {
    const admin = new Browser();
    await admin.login(ADMIN.email, ADMIN.password);
    const join = async (email: string, role: string) => {
      const invite = await admin.call('POST', '/invitations', { email, role });
      const token = decodeURIComponent(invite.body.invite_url.split('/invite/')[1]);
      const b = new Browser();
      await b.call('POST', `/auth/invitations/${token}/accept`, { password: 'a long enough password' });
      return b;
    };
    const viewer = await join('vic@example.test', 'viewer');
    const editor = await join('ed@example.test', 'editor');
    expect((await viewer.call('GET', '/workflows')).status).toBe(200);
    const create = await viewer.call('POST', '/workflows', {
      name: 'nope',
      trigger_type: 'manual',
      nodes: [],
      edges: [],
    });
    expect(create.status).toBe(403);
    expect(create.body.error.message).toMatch(/role/);
    expect((await viewer.call('GET', '/audit-logs')).status).toBe(403);
    expect((await viewer.call('GET', '/api-keys')).status).toBe(403);
    expect(
      (await editor.call('POST', '/workflows', { name: 'yes', trigger_type: 'manual', nodes: [], edges: [] }))
        .status,
    ).toBe(201);
    expect((await editor.call('POST', '/api-keys', { name: 'k', permissions: ['*'] })).status).toBe(403);
    expect(
      (await editor.call('POST', '/invitations', { email: 'x@example.test', role: 'admin' })).status,
    ).toBe(403);

    // The web write carries the user id in the audit trail.
    const [row] = await api.db.admin`select user_id, api_key_id from audit_logs
      where entity_type = 'workflow' and new_values->>'name' = 'yes'`;
    expect(row?.user_id).toBeTruthy();
    expect(row?.api_key_id).toBeNull();

    // Promote the viewer: the next request already has the new role.
    const members = await admin.call('GET', '/users');
    const vic = members.body.data.find((m: { email: string }) => m.email === 'vic@example.test');
    expect((await admin.call('PATCH', `/users/${vic.id}`, { role: 'editor' })).status).toBe(200);
    expect(
      (await viewer.call('POST', '/workflows', { name: 'now', trigger_type: 'manual', nodes: [], edges: [] }))
        .status,
    ).toBe(201);
    // The last admin cannot step down.
    const me = members.body.data.find((m: { email: string }) => m.email === ADMIN.email);
    expect((await admin.call('PATCH', `/users/${me.id}`, { role: 'viewer' })).status).toBe(409);
  });

  it('an invitation works once, and a session never reaches another organization', async () => {
    const admin = new Browser();
    await admin.login(ADMIN.email, ADMIN.password);
    const invite = await admin.call('POST', '/invitations', { email: 'once@example.test', role: 'viewer' });
    const token = decodeURIComponent(invite.body.invite_url.split('/invite/')[1]);
    const preview = (await new Browser().call('GET', `/auth/invitations/${token}`)).body;
    expect(preview).toMatchObject({ email: 'once@example.test', role: 'viewer' });
    expect(Object.keys(preview).sort()).toEqual(['email', 'organization_name', 'role']);
    expect(
      (
        await new Browser().call('POST', `/auth/invitations/${token}/accept`, {
          password: 'a long enough password',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await new Browser().call('POST', `/auth/invitations/${token}/accept`, {
          password: 'a long enough password',
        })
      ).status,
    ).toBe(404);

    const other = await api.createOrg('Other');
    const theirs = await api.request('POST', '/api/v1/workflows', {
      key: other.key,
      body: { name: 'their secret flow', trigger_type: 'manual', nodes: [], edges: [] },
    });
    const id = ((await theirs.json()) as { id: string }).id;
    expect((await admin.call('GET', `/workflows/${id}`)).status).toBe(404);
    expect(
      (await admin.call('POST', '/me/organization', { organization_id: other.organizationId })).status,
    ).toBe(404);
    const list = await admin.call('GET', '/workflows?per_page=100');
    expect(JSON.stringify(list.body)).not.toContain('their secret flow');
  });
});

describe('review fixes', () => {
  it('a key holding users.manage cannot mint an admin or any role beyond its own permissions', async () => {
    const [owner] = await api.db
      .admin`select organization_id from memberships m join users u on u.id = m.user_id
      where u.email = ${ADMIN.email}`;
    const narrow = await api.keyFor(owner?.organization_id as string, ['users.manage', 'users.view']);
    for (const role of ['admin', 'editor', 'viewer']) {
      const res = await api.request('POST', '/api/v1/invitations', {
        key: narrow,
        body: { email: `${role}-escalation@example.test`, role },
      });
      expect(res.status, role).toBe(403);
    }
    const members = (await (await api.request('GET', '/api/v1/users', { key: narrow })).json()) as {
      data: { id: string; email: string }[];
    };
    const ada = members.data.find((m) => m.email === ADMIN.email);
    expect(
      (await api.request('PATCH', `/api/v1/users/${ada?.id}`, { key: narrow, body: { role: 'viewer' } }))
        .status,
    ).toBe(403);
    expect((await api.request('DELETE', `/api/v1/users/${ada?.id}`, { key: narrow })).status).toBe(403);
    const [left] = await api.db
      .admin`select count(*)::int as n from invitations where email like '%escalation%'`;
    expect(left?.n).toBe(0);
    const full = await api.keyFor(owner?.organization_id as string, ['*']);
    expect(
      (
        await api.request('POST', '/api/v1/invitations', {
          key: full,
          body: { email: 'ok@example.test', role: 'admin' },
        })
      ).status,
    ).toBe(201);
  });

  it('a half-signed-in session ends after 5 wrong codes, whatever the address', async () => {
    const b = new Browser();
    await b.login('tess@example.test', 'two factor passphrase');
    // Two-factor was turned off above: turn it on again for this user.
    const ok = await b.call('GET', '/me');
    expect(ok.status).toBe(200);
    const setup = await b.call('POST', '/me/two-factor/setup');
    await b.call('POST', '/me/two-factor/confirm', { code: await totp(setup.body.secret, 1) });

    const pending = new Browser();
    await pending.login('tess@example.test', 'two factor passphrase');
    for (let i = 0; i < 4; i++) {
      const wrong = await pending.call(
        'POST',
        '/auth/login/two-factor',
        { code: String(100000 + i) },
        { 'X-Forwarded-For': newIp() },
      );
      expect(wrong.status).toBe(422);
    }
    const fifth = await pending.call(
      'POST',
      '/auth/login/two-factor',
      { code: '999999' },
      { 'X-Forwarded-For': newIp() },
    );
    expect(fifth.status).toBe(401);
    const again = await pending.call('POST', '/auth/login/two-factor', {
      code: await totp(setup.body.secret, 1),
    });
    expect(again.status).toBe(401); // the half session is gone: the password again

    // A recovery code (17 characters) turns two-factor off.
    const codes = (
      await api.db
        .admin`select cardinality(recovery_code_hashes) as n from users where email = 'tess@example.test'`
    )[0];
    expect(codes?.n).toBe(8);
  });

  it("signing in again ends the browser's previous session", async () => {
    const b = new Browser();
    await b.login(ADMIN.email, ADMIN.password);
    const first = b.cookie;
    await b.login(ADMIN.email, ADMIN.password);
    const replay = new Browser();
    replay.cookie = first;
    expect((await replay.call('GET', '/me')).status).toBe(401);
    expect((await b.call('GET', '/me')).status).toBe(200);
  });

  it('browser sessions are held to RATE_LIMIT_PER_KEY a minute per user', async () => {
    const limited = await createTestApi({ ratePerKey: 3 });
    try {
      const setup = await limited.request('POST', '/api/v1/auth/setup', {
        body: {
          organization_name: 'Tiny',
          name: 'T',
          email: 't@example.test',
          password: 'tiny org password',
        },
      });
      const cookie = setup.headers.get('set-cookie')?.split(';')[0] ?? '';
      // The four requests must fall in one window (a calendar minute): room for a busy machine.
      await waitForRoomInMinute(limited.db.admin, 20);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await limited.request('GET', '/api/v1/me', { headers: { Cookie: cookie } })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  }, 60_000);
});

describe('several organizations', () => {
  it('an existing account joins a second organization by invitation and switches between them', async () => {
    const second = await api.createOrg('Second');
    await api.request('POST', '/api/v1/workflows', {
      key: second.key,
      body: { name: 'second org flow', trigger_type: 'manual', nodes: [], edges: [] },
    });
    const invite = await api.request('POST', '/api/v1/invitations', {
      key: second.key,
      body: { email: 'vic@example.test', role: 'editor' },
    });
    const url = ((await invite.json()) as { invite_url: string }).invite_url;
    const token = decodeURIComponent(url.split('/invite/')[1] as string);
    const b = new Browser();
    const preview = await b.call('GET', `/auth/invitations/${token}`);
    // The preview does not tell that the e-mail has an account elsewhere: same keys as for a new person.
    expect(Object.keys(preview.body).sort()).toEqual(['email', 'organization_name', 'role']);
    expect(JSON.stringify(preview.body)).not.toMatch(/account|exists/);
    // An existing account proves it is theirs with its password.
    expect(
      (await b.call('POST', `/auth/invitations/${token}/accept`, { password: 'not it at all' })).status,
    ).toBe(422);
    expect(
      (await b.call('POST', `/auth/invitations/${token}/accept`, { password: 'a long enough password' }))
        .status,
    ).toBe(200);
    const me = await b.call('GET', '/me');
    expect(me.body.organizations.map((o: { name: string }) => o.name).sort()).toEqual(['Acme', 'Second']);
    expect(me.body.organization.name).toBe('Second');
    expect(JSON.stringify((await b.call('GET', '/workflows')).body)).toContain('second org flow');

    const acme = me.body.organizations.find((o: { name: string }) => o.name === 'Acme');
    expect((await b.call('POST', '/me/organization', { organization_id: acme.id })).status).toBe(200);
    const after = await b.call('GET', '/me');
    expect(after.body.organization).toMatchObject({ name: 'Acme', role: 'editor' });
    expect(JSON.stringify((await b.call('GET', '/workflows?per_page=100')).body)).not.toContain(
      'second org flow',
    );
  });
});

describe('passwords', () => {
  it('forgot-password without an e-mail module logs no link; an admin hands one out, which works once within the hour and ends every session', async () => {
    const admin = new Browser();
    await admin.login(ADMIN.email, ADMIN.password);
    const invite = await admin.call('POST', '/invitations', { email: 'rita@example.test', role: 'editor' });
    const inviteToken = decodeURIComponent(invite.body.invite_url.split('/invite/')[1]);
    await new Browser().call('POST', `/auth/invitations/${inviteToken}/accept`, {
      password: 'a long enough password',
    });
    const b = new Browser();
    expect((await b.login('rita@example.test', 'a long enough password')).status).toBe(200);

    logLines.length = 0;
    const known = await new Browser().call('POST', '/auth/forgot-password', { email: 'rita@example.test' });
    const unknown = await new Browser().call('POST', '/auth/forgot-password', {
      email: 'ghost@example.test',
    });
    expect(known.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    // The link went nowhere: no e-mail module, and never the log (it takes the account over).
    await expect
      .poll(() => logLines.join(''), POLL)
      .toMatch(/no organization of the user has an e-mail module/);
    const [stored] = await api.db.admin`select count(*)::int as n from password_reset_tokens`;
    expect(stored?.n).toBe(1);
    expect(logLines.join('')).not.toMatch(/reset-password|token=/);

    const members = (await admin.call('GET', '/users')).body.data as { id: string; email: string }[];
    const idOf = (email: string) => members.find((m) => m.email === email)?.id;
    // vic is in another organization too: an admin of this one may not take that account over.
    const refused = await admin.call('POST', `/users/${idOf('vic@example.test')}/reset-link`);
    expect(refused.status).toBe(409);
    // A key that may manage people but holds less than an admin may not take an admin's account.
    const acme = (await admin.call('GET', '/me')).body.organization.id as string;
    const manager = await api.keyFor(acme, ['users.view', 'users.manage']);
    const beyond = await api.request('POST', `/api/v1/users/${idOf(ADMIN.email)}/reset-link`, {
      key: manager,
    });
    expect(beyond.status).toBe(403);
    const issued = await admin.call('POST', `/users/${idOf('rita@example.test')}/reset-link`);
    expect(issued.status).toBe(201);
    expect(issued.body.expires_in_minutes).toBe(60);
    const token = new URL(issued.body.reset_url).searchParams.get('token') as string;
    const short = await new Browser().call('POST', '/auth/reset-password', { token, password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.error.fields.password).toBeDefined();
    expect(
      (await new Browser().call('POST', '/auth/reset-password', { token, password: 'a brand new password' }))
        .status,
    ).toBe(200);
    expect(
      (await new Browser().call('POST', '/auth/reset-password', { token, password: 'another new password' }))
        .status,
    ).toBe(422);
    expect((await b.call('GET', '/me')).status).toBe(401);
    expect((await new Browser().login('rita@example.test', 'a brand new password')).status).toBe(200);

    const again = await admin.call('POST', `/users/${idOf('rita@example.test')}/reset-link`);
    const stale = new URL(again.body.reset_url).searchParams.get('token') as string;
    await api.db
      .admin`update password_reset_tokens set expires_at = now() - interval '1 second' where used_at is null`;
    expect(
      (
        await new Browser().call('POST', '/auth/reset-password', {
          token: stale,
          password: 'too late password',
        })
      ).status,
    ).toBe(422);
    const audited = await api.db.admin`select user_id from audit_logs where action = 'password_reset_link'`;
    expect(audited).toHaveLength(2);
    expect(logLines.join('')).not.toContain(token);
  });

  it('a password change needs the current one, accepts 64+ characters and ends the other sessions', async () => {
    const here = new Browser();
    const there = new Browser();
    await here.login('ed@example.test', 'a long enough password');
    await there.login('ed@example.test', 'a long enough password');
    expect(
      (await here.call('POST', '/me/password', { current_password: 'wrong', new_password: 'x'.repeat(80) }))
        .status,
    ).toBe(422);
    const changed = await here.call('POST', '/me/password', {
      current_password: 'a long enough password',
      new_password: 'x'.repeat(80),
    });
    // `there` and the session from accepting the invitation earlier.
    expect(changed.body).toEqual({ other_sessions_ended: 2 });
    expect((await there.call('GET', '/me')).status).toBe(401);
    expect((await here.call('GET', '/me')).status).toBe(200);
    expect((await new Browser().login('ed@example.test', 'x'.repeat(80))).status).toBe(200);
  });
});

describe('captcha', () => {
  let fake: Server;
  let verified: URLSearchParams[] = [];
  let captchaApi: TestApi;

  beforeAll(async () => {
    fake = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const params = new URLSearchParams(body);
        verified.push(params);
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ success: params.get('response') === 'good-token' }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    captchaApi = await createTestApi({
      env: {
        CAPTCHA_ENABLED: true,
        CAPTCHA_PROVIDER: 'hcaptcha',
        HCAPTCHA_SITE_KEY: 'site-key',
        HCAPTCHA_SECRET: 'secret-key',
        CAPTCHA_VERIFY_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/siteverify`,
      },
    });
  });
  afterAll(async () => {
    fake?.close();
    await captchaApi?.close();
  });

  it('protects login and forgot password; a failed check is a validation error', async () => {
    verified = [];
    const post = (path: string, body: unknown) =>
      captchaApi.request('POST', `/api/v1${path}`, { body, headers: { 'X-Forwarded-For': newIp() } });
    const config = await (await captchaApi.request('GET', '/api/v1/auth/config')).json();
    expect(config).toMatchObject({ captcha: { provider: 'hcaptcha', site_key: 'site-key' } });
    const missing = await post('/auth/login', { email: 'a@example.test', password: 'whatever password' });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { fields: object } }).error.fields).toHaveProperty(
      'captcha_token',
    );
    const bad = await post('/auth/forgot-password', { email: 'a@example.test', captcha_token: 'bad-token' });
    expect(bad.status).toBe(422);
    const good = await post('/auth/forgot-password', {
      email: 'a@example.test',
      captcha_token: 'good-token',
    });
    expect(good.status).toBe(200);
    expect(verified.map((v) => v.get('secret'))).toEqual(['secret-key', 'secret-key']);
  });
});
