import { describe, expect, it } from 'vitest';
import { CliEnv, EnvError, loadEnv, WorkerEnv } from './index';

const APP_KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
/** Every character a URL would break on, raw. */
const awkward = 'p/#@%:?x%zz';

describe('DATABASE_PASSWORD / DATABASE_ADMIN_PASSWORD', () => {
  it('join their URLs raw: any character, decoded back exactly as given', () => {
    const env = loadEnv(CliEnv, {
      APP_KEY,
      DATABASE_URL: 'postgres://weft_app@db:5432/weft',
      DATABASE_PASSWORD: awkward,
      DATABASE_ADMIN_URL: 'postgres://weft_owner@db:5432/weft',
      DATABASE_ADMIN_PASSWORD: `${awkward}!owner`,
    });
    const app = new URL(env.DATABASE_URL ?? '');
    expect(decodeURIComponent(app.password)).toBe(awkward);
    expect(decodeURIComponent(app.username)).toBe('weft_app');
    expect(`${app.host}${app.pathname}`).toBe('db:5432/weft');
    expect(decodeURIComponent(new URL(env.DATABASE_ADMIN_URL ?? '').password)).toBe(`${awkward}!owner`);
  });

  it("replace a URL's own password, and the worker's schema reads them too", () => {
    const env = loadEnv(WorkerEnv, {
      APP_KEY,
      TEMPORAL_ADDRESS: 'temporal:7233',
      DATABASE_URL: 'postgres://weft_app:old@db/weft',
      DATABASE_PASSWORD: awkward,
    });
    expect(decodeURIComponent(new URL(env.DATABASE_URL ?? '').password)).toBe(awkward);
  });

  it('refuse a password without its URL, naming the variables and never the value', () => {
    const load = () => loadEnv(CliEnv, { APP_KEY, DATABASE_ADMIN_PASSWORD: awkward });
    expect(load).toThrow(EnvError);
    expect(load).toThrow(/DATABASE_ADMIN_PASSWORD: is set but DATABASE_ADMIN_URL is not/);
    expect(() => load()).not.toThrow(/p\/#@/);
  });

  it('leave a URL that holds a raw special character refused as before', () => {
    expect(() => loadEnv(CliEnv, { APP_KEY, DATABASE_URL: 'postgres://u:p%zz@db/weft' })).toThrow(
      /DATABASE_URL: must be a postgres:\/\/ URL/,
    );
  });
});
