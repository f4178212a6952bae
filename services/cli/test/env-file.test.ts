import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCliEnv } from '../src/project';

/** `.env` as the CLI reads it: values with `$` (a bcrypt hash) and quoted `#` arrive intact. */
let dir: string;
const HASH = '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW';
const saved = { ...process.env };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'weft-env-'));
});
afterAll(async () => {
  process.env = saved;
  await rm(dir, { recursive: true, force: true });
});

describe('.env', () => {
  it('keeps a bcrypt hash, a $ in a database password and a quoted # intact', async () => {
    for (const name of [
      'APP_KEY',
      'DATABASE_URL',
      'DATABASE_ADMIN_URL',
      'WEFT_TEST_HASH',
      'WEFT_TEST_HASHMARK',
    ])
      delete process.env[name];
    const file = path.join(dir, '.env');
    await writeFile(
      file,
      [
        `APP_KEY=base64:${randomBytes(32).toString('base64')}`,
        `WEFT_TEST_HASH=${HASH}`,
        `DATABASE_URL=postgres://weft_app:s3$2b$12$cr%23t@127.0.0.1:5432/weft`,
        `WEFT_TEST_HASHMARK='a#b'`,
        '',
      ].join('\n'),
    );
    const env = loadCliEnv(file);
    expect(process.env.WEFT_TEST_HASH).toBe(HASH);
    expect(env.DATABASE_URL).toBe('postgres://weft_app:s3$2b$12$cr%23t@127.0.0.1:5432/weft');
    expect(decodeURIComponent(new URL(env.DATABASE_URL ?? '').password)).toBe('s3$2b$12$cr#t');
    expect(process.env.WEFT_TEST_HASHMARK).toBe('a#b');
  });
});
