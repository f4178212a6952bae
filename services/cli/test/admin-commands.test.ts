import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOrganization } from '@weft/domain';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The admin commands against a real PostgreSQL through DATABASE_URL: read-only commands only
 * connect, every command taking --org refuses an unknown one in one line with exit code 2, and
 * passwords with URL-special characters work once percent-encoded.
 */

// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');
let t: TestDatabase;
let org: string;
let env: NodeJS.ProcessEnv;
/** A login role whose password needs percent-encoding in a URL; a member of weft_app. */
const role = `lc_${randomBytes(4).toString('hex')}`;
const awkwardPassword = 'p/#@%:?x';

function weft(args: string[], extra: NodeJS.ProcessEnv = {}, input?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...env, ...extra }, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input ?? '');
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  org = (await createOrganization(t.app.db, { name: 'Lifecycle' })).id;
  env = {
    ...process.env,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    DATABASE_URL: t.appUrl,
    DATABASE_ADMIN_URL: t.adminUrl,
    TEMPORAL_ADDRESS: '',
  };
  await t.admin.unsafe(
    `CREATE ROLE ${role} LOGIN PASSWORD '${awkwardPassword.replaceAll("'", "''")}' IN ROLE weft_app`,
  );
}, 60_000);

afterAll(async () => {
  await t?.admin.unsafe(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
  await t?.drop();
});

describe('admin commands', () => {
  it('read-only commands neither migrate nor touch role passwords: they work with no admin access', async () => {
    // An owner URL that cannot log in: anything that migrates or runs ALTER ROLE fails on it.
    const noAdmin = { DATABASE_ADMIN_URL: t.adminUrl.replace(/:[^:@/]+@/, ':wrong-password@') };
    const users = await weft(['user', 'list', '--org', org, '--json'], noAdmin);
    expect(users.code, users.stderr).toBe(0);
    expect(JSON.parse(users.stdout)).toEqual({ users: [] });
    const keys = await weft(['api-key', 'list', '--org', org, '--json'], noAdmin);
    expect(keys.code, keys.stderr).toBe(0);
    expect(JSON.parse(keys.stdout)).toEqual({ api_keys: [] });
    // A writing command does migrate first, so it needs the owner.
    const create = await weft(
      ['api-key', 'create', '--org', org, '--name', 'k', '--permissions', '*', '--json'],
      noAdmin,
    );
    expect(create.code).toBe(1);
    expect(create.stderr).toMatch(/^weft: could not apply the migrations: password authentication failed/);
  }, 240_000);

  it('refuses an unknown --org in one line with exit code 2, in every command that takes one', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const exportFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'weft-admin-')), 'export.json');
    await writeFile(
      exportFile,
      JSON.stringify({ format: 'weft.workflows/v1', exported_at: new Date().toISOString(), workflows: [] }),
    );
    const commands: [string[], string?][] = [
      [['user', 'create', '--email', 'a@example.com', '--password-stdin'], 'a long enough password 1'],
      [['user', 'list']],
      [['user', 'revoke', '--id', unknown]],
      [['api-key', 'create', '--name', 'k', '--permissions', '*']],
      [['api-key', 'list']],
      [['api-key', 'revoke', '--id', unknown]],
      [['settings', 'set', '--cart-inactivity-minutes', '5']],
      [['workflows', 'export', '--file', path.join(import.meta.dirname, 'never-written.json')]],
      [['workflows', 'import', '--file', exportFile]],
    ];
    for (const [args, input] of commands) {
      const result = await weft([...args, '--org', unknown], {}, input);
      const line = `weft: no organization with id "${unknown}" (weft org create prints the id)\n`;
      expect({ command: args.join(' '), code: result.code, stderr: result.stderr }).toEqual({
        command: args.join(' '),
        code: 2,
        stderr: line,
      });
      expect(result.stdout).toBe('');
    }
    const garbage = await weft(['api-key', 'list', '--org', "x'; select 1; --"]);
    expect(garbage).toMatchObject({ code: 2, stdout: '' });
    expect(garbage.stderr).toBe(
      `weft: no organization with id "x'; select 1; --" (weft org create prints the id)\n`,
    );
  }, 600_000);

  it('connects with a password holding / # @ % : ? percent-encoded or raw in DATABASE_PASSWORD, and says how when neither', async () => {
    const encoded = `postgres://${role}:${encodeURIComponent(awkwardPassword)}@127.0.0.1:${new URL(t.appUrl).port}/${t.name}`;
    const users = await weft(['user', 'list', '--org', org, '--json'], {
      DATABASE_URL: encoded,
      DATABASE_ADMIN_URL: encoded,
    });
    expect(users.code, users.stderr).toBe(0);
    expect(JSON.parse(users.stdout)).toEqual({ users: [] });

    // The same password raw, beside URLs without one (the compose layout): no encoding needed.
    const bare = `postgres://${role}@127.0.0.1:${new URL(t.appUrl).port}/${t.name}`;
    const rawPassword = await weft(['user', 'list', '--org', org, '--json'], {
      DATABASE_URL: bare,
      DATABASE_PASSWORD: awkwardPassword,
      DATABASE_ADMIN_URL: bare,
      DATABASE_ADMIN_PASSWORD: awkwardPassword,
    });
    expect(rawPassword.code, rawPassword.stderr).toBe(0);
    expect(JSON.parse(rawPassword.stdout)).toEqual({ users: [] });

    const raw = `postgres://${role}:p%zz@127.0.0.1:5432/x`;
    const refused = await weft(['user', 'list', '--org', org], { DATABASE_URL: raw });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('DATABASE_URL: must be a postgres:// URL; percent-encode');
    expect(refused.stderr).not.toContain('p%zz');
    expect(refused.stderr.split('\n').filter((l) => /^\s+at /.test(l))).toEqual([]);
  }, 240_000);
});
