import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createUser } from '@weft/domain';
import { createTestApi, registerCanary, registerSecretsIn, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// `weft user reset-link`: an operator hands a user a reset link (reset links are never logged),
// against a test database the CLI reaches through DATABASE_URL.

const run = promisify(execFile);
// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');
const PASSWORD = 'the first password';

let api: TestApi;
let org: { organizationId: string };
let env: NodeJS.ProcessEnv;

const weft = (...args: string[]) =>
  run(process.execPath, [CLI, ...args], { env, timeout: 60_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

beforeAll(async () => {
  api = await createTestApi();
  org = await api.createOrg('Reset Org');
  registerCanary('password', PASSWORD);
  await createUser({
    ctx: { db: api.db.app.db, organizationId: org.organizationId, actor: {} },
    input: { email: 'lost@example.test', password: PASSWORD, role: 'admin' },
  });
  env = {
    ...process.env,
    DATABASE_URL: api.db.appUrl,
    DATABASE_ADMIN_URL: api.db.adminUrl,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    APP_URL: 'http://localhost:3000',
  };
}, 60_000);
afterAll(() => api?.close());

describe('weft user reset-link', () => {
  it('prints a fresh single-use link that resets the password', async () => {
    const result = await weft(
      'user',
      'reset-link',
      '--org',
      org.organizationId,
      '--email',
      'lost@example.test',
      '--json',
    );
    expect(result.code, result.stderr).toBe(0);
    const link = JSON.parse(result.stdout) as { reset_url: string; expires_in_minutes: number };
    registerSecretsIn(link, 'cli');
    expect(link.expires_in_minutes).toBe(60);
    expect(link.reset_url).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/);
    const token = new URL(link.reset_url).searchParams.get('token');
    const reset = await api.request('POST', '/api/v1/auth/reset-password', {
      body: { token, password: 'a second password' },
    });
    expect(reset.status).toBe(200);
    const login = await api.request('POST', '/api/v1/auth/login', {
      body: { email: 'lost@example.test', password: 'a second password' },
    });
    expect(login.status).toBe(200);
    const [audited] = await api.db
      .admin`select count(*)::int as n from audit_logs where action = 'password_reset_link'`;
    expect(audited?.n).toBe(1);

    const text = await weft(
      'user',
      'reset-link',
      '--org',
      org.organizationId,
      '--email',
      'lost@example.test',
    );
    expect(text.stdout).toMatch(
      /^Reset link for lost@example\.test \(single use, valid 60 minutes\):\nhttp:\/\/localhost:3000\/reset-password\?token=\S+\n$/,
    );
    registerSecretsIn(text.stdout, 'cli');
  }, 120_000);

  it('refuses an unknown user or organization with exit code 2 and one line', async () => {
    const nobody = await weft(
      'user',
      'reset-link',
      '--org',
      org.organizationId,
      '--email',
      'nobody@example.test',
    );
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toBe(`weft: no user nobody@example.test in organization ${org.organizationId}\n`);
    const elsewhere = randomUUID();
    const otherOrg = await weft('user', 'reset-link', '--org', elsewhere, '--email', 'lost@example.test');
    expect(otherOrg.code).toBe(2);
    expect(otherOrg.stderr).toBe(`weft: no user lost@example.test in organization ${elsewhere}\n`);
    const notAnId = await weft('user', 'reset-link', '--org', 'acme', '--email', 'lost@example.test');
    expect(notAnId.code).toBe(2);
    expect(notAnId.stdout).toBe('');
  }, 120_000);
});
