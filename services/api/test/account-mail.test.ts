import type { AddressInfo } from 'node:net';
import { createUser } from '@weft/domain';
import { createLogger } from '@weft/telemetry';
import { createTestApi, type TestApi } from '@weft/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Invitation and password-reset links go out through the organization's e-mail module (a local SMTP
// server here); without one the invitation link is only answered to the admin, and a reset link is
// only handed out by an admin (never written to the log).

let api: TestApi;
let smtp: SMTPServer;
const received: { to: string[]; body: string }[] = [];
/** The app's log lines, as written. */
const logged: string[] = [];
let org: { organizationId: string; key: string };
/** expect.poll waits 1 s by default: too short for a busy machine. Bounded by the test's timeout. */
const POLL = { timeout: 30_000 };

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (d: Buffer) => (body += d.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  api = await createTestApi({
    ssrfAllowlist: ['127.0.0.0/8'],
    logger: createLogger({ level: 'warn', destination: { write: (line: string) => logged.push(line) } }),
  });
  org = await api.createOrg('Acme');
}, 60_000);

afterAll(async () => {
  await api?.close();
  await new Promise<void>((resolve) => smtp?.close(resolve));
});

/** The quoted-printable body of a message with its soft line breaks joined. */
const plain = (body: string) => body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

describe('sign-in links by e-mail', () => {
  it('a user made by `weft user create` signs in; without an e-mail module no reset link is sent or logged', async () => {
    const user = await createUser({
      ctx: { db: api.db.app.db, organizationId: org.organizationId, actor: {} },
      input: { email: 'cli@acme.test', password: 'made on the command line', role: 'member' },
    });
    const login = await api.request('POST', '/api/v1/auth/login', {
      body: { email: 'cli@acme.test', password: 'made on the command line' },
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const me = await api.request('GET', '/api/v1/me', { headers: { Cookie: cookie } });
    expect(((await me.json()) as { organization: { role: string } }).organization.role).toBe('editor');

    await api.request('POST', '/api/v1/auth/forgot-password', { body: { email: 'cli@acme.test' } });
    await expect
      .poll(() => logged.join(''), POLL)
      .toMatch(/no organization of the user has an e-mail module/);
    expect(logged.join('')).toContain(user.id);
    expect(logged.join('')).not.toMatch(/reset-password|token=|cli@acme/);
    expect(received).toHaveLength(0);
  });

  it('with the e-mail module set up, invitations and reset links are e-mailed', async () => {
    const put = await api.request('PUT', '/api/v1/modules/email', {
      key: org.key,
      body: {
        host: '127.0.0.1',
        port: (smtp.server.address() as AddressInfo).port,
        security: 'none',
        allow_insecure: true,
        from_email: 'weft@acme.test',
      },
    });
    expect(put.status).toBe(200);
    const invite = await api.request('POST', '/api/v1/invitations', {
      key: org.key,
      body: { email: 'new@acme.test', role: 'viewer' },
    });
    const created = (await invite.json()) as { emailed: boolean; invite_url: string };
    expect(created.emailed).toBe(true);
    expect(received.at(-1)?.to).toEqual(['new@acme.test']);
    expect(plain(received.at(-1)?.body ?? '')).toContain(created.invite_url);

    await api.request('POST', '/api/v1/auth/forgot-password', { body: { email: 'cli@acme.test' } });
    await expect.poll(() => received.length, POLL).toBe(2);
    expect(received[1]?.to).toEqual(['cli@acme.test']);
    const link = /http:\/\/localhost:3000\/reset-password\?token=[\w%-]+/.exec(
      plain(received[1]?.body ?? ''),
    )?.[0];
    expect(link).toBeTruthy();
    const token = decodeURIComponent(new URL(link as string).searchParams.get('token') as string);
    const reset = await api.request('POST', '/api/v1/auth/reset-password', {
      body: { token, password: 'reset through the mail' },
    });
    expect(reset.status).toBe(200);
    expect(logged.join('')).not.toContain(token);
    expect(logged.join('')).not.toContain(created.invite_url.split('/invite/')[1]);
  });
});
