import { appendFile, chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort as freePort } from '@weft/config';
import { startEmbeddedPostgres } from '@weft/db';
import { findClusterBinaries, freeClusterPortRange, startCluster } from '@weft/temporal/cluster';
import { setupTemporalNamespace } from '@weft/temporal/namespace-setup';
import { SHARED_TEMPORAL_ENV } from './temporal';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Global set-up of the cluster test run (vitest.cluster.config.ts): the production Temporal path,
 * as `weft up --temporal cluster` runs it: temporal-server 1.32 on its own PostgreSQL (persistence
 * and SQL visibility, schemas applied by temporal-sql-tool, 4 history shards, the deployment's
 * dynamic config), then the namespace and search-attribute step every deployment runs. The test
 * files connect to it through WEFT_TEST_TEMPORAL_ADDRESS. Its log goes to a file, printed only when
 * start-up fails.
 */
export default async function setup() {
  const binaries = findClusterBinaries(ROOT);
  if (!binaries) throw new Error('temporal-server is not built: run scripts/build-temporal-server.sh');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-cluster-'));
  await chmod(dir, 0o755);
  const logFile = path.join(dir, 'temporal-server.log');
  const log = (line: string) => void appendFile(logFile, `${line}\n`);
  const pgPort = await freePort();
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'pg'),
    port: pgPort,
    adminPassword: 'weft-test-temporal',
    database: 'postgres',
  });
  const start = async () =>
    startCluster({
      binaries,
      db: { host: '127.0.0.1', port: pgPort, user: 'postgres', password: 'weft-test-temporal' },
      port: await freeClusterPortRange(),
      dynamicConfigFile: path.join(ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'),
      log,
    });
  try {
    // Twelve ports found free a moment ago can be taken by then (another test run's ephemeral
    // ports): one more try on another range before giving up.
    const cluster = await start().catch((error: unknown) => {
      log(`first start failed, trying another port range: ${String(error)}`);
      return start();
    });
    await setupTemporalNamespace({
      connection: { address: cluster.address },
      namespace: 'default',
      retentionDays: 1,
      log,
    });
    process.env[SHARED_TEMPORAL_ENV] = cluster.address;
    console.log(`[cluster] temporal-server on ${cluster.address} (PostgreSQL on ${pgPort}; log ${logFile})`);
    return async () => {
      await cluster.stop();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    };
  } catch (error) {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    console.error(
      `[cluster] start-up failed: ${String(error)}\nserver log:\n${text.split('\n').slice(-40).join('\n')}`,
    );
    await pg.stop();
    throw error;
  }
}
