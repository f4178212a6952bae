import { createConnection } from 'node:net';
import type { CliEnv } from '@weft/config';
import {
  acceptedPassword,
  adoptAdminPassword,
  connectDatabase,
  type Database,
  enableAppRoleLogin,
  noKeyOpens,
  runMigrations,
  startEmbeddedPostgres,
} from '@weft/db';
import {
  checkKeyRing,
  createSecretBox,
  isUuid,
  type KeyCheck,
  type MoveReport,
  moveInlineSecrets,
  organizationExists,
} from '@weft/domain/admin';
import { dataPath, derivedSecret, loadCliEnv } from './project';
import { UsageError } from './usage-error';

export interface DatabaseUrls {
  /** Runtime role weft_app (RLS applies). */
  appUrl: string;
  /** Owner role (migrations). */
  adminUrl: string;
  embedded: boolean;
  stop(): Promise<void>;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The database for a CLI command: DATABASE_URL when set; otherwise the embedded server in
 * `.data/postgres` — reused when `weft up` already runs it, started (and later stopped) otherwise.
 * Migrations are applied either way, so every command sees the current schema.
 */
export async function openDatabase(
  env: CliEnv,
  log: (line: string) => void = () => {},
  /** One-off lines for the user, e.g. that the data directory had to go elsewhere (see startEmbeddedPostgres). */
  notice?: (line: string) => void,
  /** A read-only command neither migrates nor sets the runtime role's password: it only connects. */
  options: { readOnly?: boolean } = {},
): Promise<DatabaseUrls> {
  if (env.DATABASE_URL) {
    const adminUrl = env.DATABASE_ADMIN_URL ?? env.DATABASE_URL;
    if (options.readOnly)
      return { appUrl: env.DATABASE_URL, adminUrl, embedded: false, stop: async () => {} };
    await runMigrations(adminUrl);
    // The migrations create weft_app without a password (NOLOGIN); a deployment that connects as it
    // (docker-compose.yml) gets it from DATABASE_URL, so nothing else has to run ALTER ROLE.
    const app = new URL(env.DATABASE_URL);
    if (adminUrl !== env.DATABASE_URL && decodeURIComponent(app.username) === 'weft_app' && app.password) {
      await enableAppRoleLogin(adminUrl, decodeURIComponent(app.password));
    }
    return { appUrl: env.DATABASE_URL, adminUrl, embedded: false, stop: async () => {} };
  }
  // Derived from the current APP_KEY; a server created under a previous key is moved onto it by
  // the writing commands. Read-only commands change nothing: they log in with whichever key's
  // passwords the roles still have (APP_KEY just changed, before `weft up` or a writing command ran).
  const readOnly = options.readOnly === true;
  const ring = [env.APP_KEY, ...env.APP_KEYS_PREVIOUS];
  const [adminPassword = '', ...previousAdminPasswords] = ring.map((key) =>
    derivedSecret(key, 'embedded-postgres/admin'),
  );
  const appPasswords = ring.map((key) => derivedSecret(key, 'embedded-postgres/app'));
  const port = env.EMBEDDED_PG_PORT;
  const url = (user: string, password: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/weft`;
  let stop = async () => {};
  let adminInUse: string;
  if (!(await portAnswers(port))) {
    const dataDir = dataPath(env, 'postgres');
    const pg = await startEmbeddedPostgres({
      dataDir,
      port,
      adminPassword,
      previousAdminPasswords,
      readOnly,
      database: 'weft',
      log,
      notice,
    }).catch((cause: unknown) => {
      // embedded-postgres rejects with no reason when the data directory is in use (a `weft up`
      // started with another EMBEDDED_PG_PORT holds it); say what to check instead of "undefined".
      const reason = cause instanceof Error ? `: ${cause.message}` : '';
      throw new Error(
        `could not start the embedded PostgreSQL in ${dataDir} on port ${port}${reason}. ` +
          'If `weft up` is running, give this command the same EMBEDDED_PG_PORT (or DATABASE_URL).',
      );
    });
    stop = () => pg.stop();
    adminInUse = pg.adminPassword;
  } else {
    adminInUse = await adoptAdminPassword(port, adminPassword, previousAdminPasswords, { readOnly });
  }
  const adminUrl = url('postgres', adminInUse);
  if (readOnly) {
    const appPassword = await acceptedPassword(port, 'weft_app', 'weft', appPasswords).catch(
      async (error: unknown) => {
        await stop();
        throw error;
      },
    );
    if (appPassword === undefined) {
      await stop();
      throw noKeyOpens(port, 'weft_app');
    }
    return { appUrl: url('weft_app', appPassword), adminUrl, embedded: true, stop };
  }
  const appPassword = appPasswords[0] ?? '';
  try {
    await runMigrations(adminUrl);
    await enableAppRoleLogin(adminUrl, appPassword);
  } catch (error) {
    // The server this command started must not outlive it: the next command would find its port
    // answering and use it, whatever became of its data directory.
    await stop();
    throw error;
  }
  return { appUrl: url('weft_app', appPassword), adminUrl, embedded: true, stop };
}

/**
 * The data step after the SQL migrations: secrets that workflows saved before credentials existed
 * hold in clear move into credentials (see moveInlineSecrets). Idempotent; `weft migrate` and
 * `weft up` run it.
 */
export async function moveInlineSecretsOf(
  database: DatabaseUrls,
  appKey: Uint8Array,
  previousAppKeys: readonly Uint8Array[] = [],
): Promise<MoveReport> {
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    return await moveInlineSecrets(handle.db, createSecretBox(appKey, previousAppKeys));
  } finally {
    await handle.close();
  }
}

/** The API and worker's start-up check of the key ring, on the runtime role (see checkKeyRing). */
export async function checkKeyRingOf(database: DatabaseUrls, env: CliEnv): Promise<KeyCheck> {
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    return await checkKeyRing(handle.db, createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS));
  } finally {
    await handle.close();
  }
}

/**
 * Runs `work` with an app-role connection (row-level security applies) to the database `weft up`
 * uses (or DATABASE_URL), and closes both afterwards. The admin commands all go through here. With
 * `org`, the organization must exist (else a UsageError: one line, exit 2); `readOnly` commands
 * (the lists, the export) neither migrate nor touch role passwords.
 */
export async function withAppDatabase<T>(
  work: (db: Database, env: CliEnv) => Promise<T>,
  options: { org?: string; readOnly?: boolean } = {},
): Promise<T> {
  const { org } = options;
  if (org !== undefined && !isUuid(org)) throw unknownOrganization(org);
  const env = loadCliEnv();
  const database = await openDatabase(env, undefined, undefined, { readOnly: options.readOnly });
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    if (org !== undefined && !(await organizationExists(handle.db, org))) throw unknownOrganization(org);
    return await work(handle.db, env);
  } finally {
    await handle.close();
    await database.stop();
  }
}

const unknownOrganization = (org: string) =>
  new UsageError(
    `no organization with id ${JSON.stringify(org.slice(0, 100))} (weft org create prints the id)`,
  );
