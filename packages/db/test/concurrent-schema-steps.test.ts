import { createTestDatabase, type TestDatabase } from '@weft/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableAppRoleLogin, runMigrations } from '../src/migrate';

/**
 * Every writing CLI command runs the migrations and sets the runtime role's password. Two commands
 * at once (the contract fuzz's set-up creates two API keys together) once failed one of them with
 * PostgreSQL's "tuple concurrently updated": both updated the role's catalog row at the same time.
 */
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t?.drop());

describe('the schema steps of concurrent commands', () => {
  it('set the runtime role password eight times at once without a refusal', async () => {
    // The same password the shared server's other test databases use: the role is server-wide.
    const password = decodeURIComponent(new URL(t.appUrl).password);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => enableAppRoleLogin(t.adminUrl, password)),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // The role still logs in with that password (a new connection, not a pooled one).
    const fresh = postgres(t.appUrl, { max: 1 });
    try {
      const [row] = await fresh<{ user: string }[]>`select current_user as user`;
      expect(row?.user).toBe('weft_app');
    } finally {
      await fresh.end();
    }
  });

  it('run the migrations four times at once, each finding its work done or waiting for it', async () => {
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => runMigrations(t.adminUrl)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  });
});
