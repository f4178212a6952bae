import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '@weft/config';
import { enableAppRoleLogin, type RunningPostgres, runMigrations, startEmbeddedPostgres } from '@weft/db';
import { ensureClusterBinaries, freeClusterPortRange, startCluster } from '@weft/temporal/cluster';
import { PLAINTEXT_TEMPORAL_ENV } from '@weft/temporal/connection';
import { resolveTemporalCli, startDevServer } from '@weft/temporal/dev-server';
import { setupTemporalNamespace } from '@weft/temporal/namespace-setup';
import postgres from 'postgres';
import { runLogDirectory, runStep, spawnService, stopChild, waitForHttp } from '../children';
import { stopOnInterrupt } from '../interrupt';
import { dataPath, derivedSecret, loadCliEnv, PROJECT_ROOT } from '../project';
import { serviceBundles } from '../service-bundle';

const TASK_QUEUE = 'weft-chaos';

interface RunningTemporal {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The dev server on a state file and fixed ports: a restart finds its executions again. */
async function devServerStarter(cliSetting: string | undefined, dbFile: string, log: (line: string) => void) {
  const cli = await resolveTemporalCli(cliSetting, PROJECT_ROOT);
  const ports = { port: await freeLoopbackPort(), uiPort: await freeLoopbackPort() };
  return (): Promise<RunningTemporal> => startDevServer({ cli, dbFile, namespace: 'default', ...ports, log });
}

/**
 * temporal-server as `weft up --temporal cluster` runs it, its state in this stack's PostgreSQL; the
 * namespace step runs after the first start only (a restart must find it as it was).
 */
async function clusterStarter(adminUrl: string, log: (line: string) => void) {
  const binaries = await ensureClusterBinaries(PROJECT_ROOT);
  const url = new URL(adminUrl);
  const db = {
    host: url.hostname,
    port: Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  const port = await freeClusterPortRange();
  let namespaceReady = false;
  return async (): Promise<RunningTemporal> => {
    const server = await startCluster({
      binaries,
      db,
      port,
      dynamicConfigFile: path.join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'),
      log,
    });
    if (!namespaceReady) {
      await setupTemporalNamespace({
        connection: { address: server.address },
        namespace: 'default',
        retentionDays: 1,
        log,
      });
      namespaceReady = true;
    }
    return server;
  };
}

/**
 * A stack whose every part can be killed and brought back: unlike the bench stack (which reuses the
 * project's PostgreSQL), each chaos run owns a fresh embedded PostgreSQL, a fresh Temporal dev
 * server state file, an API process and `workers` worker processes (split layout, as production).
 * Ports are picked once and kept, so a restarted part comes back where the others look for it.
 */
export async function startChaosStack(options: {
  workers: number;
  /** `cluster`: the production server (temporal-server on this stack's PostgreSQL) instead of the dev server. */
  temporal?: 'dev' | 'cluster';
}) {
  const env = loadCliEnv();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-chaos-'));
  const pgPort = await freeLoopbackPort();
  const adminPassword = derivedSecret(env.APP_KEY, 'chaos/admin');
  const appPassword = derivedSecret(env.APP_KEY, 'chaos/app');
  const startPostgres = () =>
    startEmbeddedPostgres({
      dataDir: path.join(dir, 'postgres'),
      port: pgPort,
      adminPassword,
      database: 'weft',
    });
  let pg: RunningPostgres | undefined = await startPostgres();
  const adminUrl = pg.adminUrl;
  // As root the data may live elsewhere (see reachableDataDir): remember where, to remove it.
  const pgDataDir = pg.dataDir;
  await runMigrations(adminUrl);
  await enableAppRoleLogin(adminUrl, appPassword);
  const appUrl = `postgres://weft_app:${appPassword}@127.0.0.1:${pgPort}/weft`;

  const logs = runLogDirectory(dataPath(env), 'chaos');
  process.stderr.write(`service logs: ${logs}\n`);
  const temporalLog = (line: string) => appendFileSync(path.join(logs, 'temporal.log'), `${line}\n`);
  const startTemporal =
    options.temporal === 'cluster'
      ? await clusterStarter(adminUrl, temporalLog)
      : await devServerStarter(env.TEMPORAL_CLI, path.join(dir, 'temporal.db'), temporalLog);
  let temporal: RunningTemporal | undefined = await startTemporal();

  const port = await freeLoopbackPort();
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await runStep(path.join(PROJECT_ROOT, 'services/worker/src/build-bundle.ts'), [bundlePath]);
  const serviceEnv = {
    WORKFLOW_BUNDLE_PATH: bundlePath,
    DATABASE_URL: appUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_PER_KEY: '1000000000',
    RATE_LIMIT_PER_ORG: '1000000000',
    SSRF_ALLOWLIST: '127.0.0.1/32',
    RUN_WORKER: 'false',
    ...PLAINTEXT_TEMPORAL_ENV,
  };
  // A service that exits without our kill (a crash) is a finding in itself: the ledger lists it.
  let workerCount = 0;
  const deaths: string[] = [];
  const killed = new Set<ChildProcess>();
  let stopping = false;
  // Like `weft up`'s supervisor (and a container's restart policy), a crashed service is started
  // again after a moment, so the ledger still shows whether the rest recovers.
  const watch = (role: 'api' | 'worker', child: ChildProcess) => {
    child.once('exit', (code, signal) => {
      if (stopping || killed.has(child)) return;
      deaths.push(`${role} (pid ${child.pid}) exited ${signal ?? code}, restarted`);
      setTimeout(() => {
        if (stopping) return;
        if (role === 'api') api = spawnApi();
        else workers = workers.map((w) => (w === child ? spawnWorker() : w));
      }, 2_000);
    });
    return child;
  };
  const bundles = await serviceBundles();
  const spawnApi = (): ChildProcess =>
    watch('api', spawnService(bundles.api, serviceEnv, { logFile: path.join(logs, 'api.log') }));
  const spawnWorker = (): ChildProcess =>
    watch(
      'worker',
      spawnService(bundles.worker, serviceEnv, { logFile: path.join(logs, `worker-${++workerCount}.log`) }),
    );
  let api: ChildProcess = spawnApi();
  let workers: ChildProcess[] = Array.from({ length: options.workers }, spawnWorker);
  const base = `http://127.0.0.1:${port}`;
  const admin = postgres(adminUrl, { max: 4, onnotice: () => {} });
  const alive = () => api.exitCode === null && workers.every((w) => w.exitCode === null);

  /** SIGKILL to the process group (the child was spawned detached): no drain, no goodbye. */
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    killed.add(child);
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  };

  const stopEverything = async () => {
    stopping = true;
    for (const child of [api, ...workers]) await stopChild(child);
    await temporal?.stop();
    await admin.end({ timeout: 5 }).catch(() => {});
    await pg?.stop();
    await rm(pgDataDir, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  };
  const stop = stopOnInterrupt(stopEverything);

  try {
    await waitForHttp(`${base}/readyz`, 120_000, alive);
    const { createOrganization, createApiKey } = await import('@weft/domain');
    const { connectDatabase } = await import('@weft/db');
    const handle = connectDatabase(appUrl, { max: 2 });
    const org = await createOrganization(handle.db, { name: `chaos ${new Date().toISOString()}` });
    const { key } = await createApiKey({
      ctx: { db: handle.db, organizationId: org.id, actor: {} },
      input: { name: 'chaos', permissions: ['*'] },
    });
    await handle.close();
    return {
      base,
      key,
      admin,
      organizationId: org.id,
      /** Services that died on their own so far. */
      deaths: () => [...deaths],
      faults: {
        killTemporal: async () => {
          if (temporal) await kill(temporal.process);
          temporal = undefined;
        },
        /** The same state file and ports: executions in flight must survive. */
        startTemporal: async () => {
          temporal = await startTemporal();
        },
        killApi: () => kill(api),
        killWorkers: async () => {
          for (const worker of workers) await kill(worker);
        },
        startApi: async () => {
          api = spawnApi();
          await waitForHttp(`${base}/healthz`, 120_000, alive);
        },
        startWorkers: () => {
          workers = Array.from({ length: options.workers }, spawnWorker);
        },
        stopPostgres: async () => {
          await pg?.stop();
          pg = undefined;
        },
        startPostgres: async () => {
          pg = await startPostgres();
        },
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export type ChaosStack = Awaited<ReturnType<typeof startChaosStack>>;
