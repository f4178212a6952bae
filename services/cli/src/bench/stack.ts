import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { BenchEnv, freeLoopbackPort, loadProcessEnv } from '@weft/config';
import { postmasterPid } from '@weft/db';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { PLAINTEXT_TEMPORAL_ENV, temporalConnectionOptions } from '@weft/temporal/connection';
import { resolveTemporalCli, startDevServer } from '@weft/temporal/dev-server';
import postgres from 'postgres';
import { runLogDirectory, runStep, spawnService, stopChild, waitForHttp } from '../children';
import { openDatabase } from '../database';
import { stopOnInterrupt } from '../interrupt';
import { layoutServices, type ProcessLayout } from '../process-layout';
import { dataPath, loadCliEnv, PROJECT_ROOT } from '../project';
import { serviceBundles } from '../service-bundle';
import { createCostProbe } from './cost-probe';

export const BENCH_TASK_QUEUE = 'weft-bench';

/** The fields of API answers the benches read. */
export interface ApiAnswer {
  id: string;
  execution_ids: string[];
  /** POST /workflows/{id}/execute */
  execution_id: string;
  workflows_triggered: number;
  secret?: string;
  webhook_url?: string;
}

/**
 * What a bench runs against: a fresh Temporal dev server, the project's PostgreSQL, a worker process
 * and an API process on this machine, and an organization with an all-permissions key.
 */
export async function startBenchStack(
  options: {
    sqliteSynchronous?: 'NORMAL' | 'OFF';
    extraEnv?: Record<string, string>;
    /** Extra dynamic config of the dev server (`KEY=JSON`), to measure a lever before adopting it. */
    temporalConfig?: string[];
    /** Process layout of API and worker; default: what `weft up` runs (WEFT_PROCESS_LAYOUT). */
    layout?: ProcessLayout;
    /** Worker processes of the split layout (default 1), each its own Node process on the same task queue. */
    workers?: number;
    /**
     * An already running Temporal server to measure instead of a fresh dev server (its namespace
     * `default` must have the Weft search attributes), with its Prometheus endpoint and pid if known.
     */
    external?: { address: string; metricsUrl?: string; pid?: number };
  } = {},
) {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-temporal-'));
  const metricsPort = await freeLoopbackPort();
  const temporal = options.external
    ? { address: options.external.address, pid: options.external.pid, stop: async () => {} }
    : await startDevServer({
        cli: await resolveTemporalCli(env.TEMPORAL_CLI, PROJECT_ROOT),
        dbFile: path.join(dir, 'temporal.db'),
        port: await freeLoopbackPort(),
        uiPort: await freeLoopbackPort(),
        namespace: 'default',
        metricsPort,
        dynamicConfig: options.temporalConfig,
        sqliteSynchronous: options.sqliteSynchronous,
      }).then((server) => ({ ...server, pid: server.process.pid }));
  const metricsUrl = options.external
    ? options.external.metricsUrl
    : `http://127.0.0.1:${metricsPort}/metrics`;
  const port = await freeLoopbackPort();
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await runStep(path.join(PROJECT_ROOT, 'services/worker/src/build-bundle.ts'), [bundlePath]);
  const serviceEnv = {
    WORKFLOW_BUNDLE_PATH: bundlePath,
    DATABASE_URL: database.appUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: BENCH_TASK_QUEUE,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_PER_KEY: '1000000000',
    RATE_LIMIT_PER_ORG: '1000000000',
    DATABASE_POOL_SIZE: '20',
    // An external server is reached with the project's TEMPORAL_* settings; our own dev server in plaintext.
    ...(options.external ? {} : PLAINTEXT_TEMPORAL_ENV),
    ...options.extraEnv,
  };
  // WEFT_BENCH_CPU_PROF=<dir>: the API and worker write V8 CPU profiles there when the bench stops them.
  const profile = loadProcessEnv(BenchEnv).WEFT_BENCH_CPU_PROF;
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const layout = options.layout ?? env.WEFT_PROCESS_LAYOUT;
  const logs = runLogDirectory(dataPath(env), 'bench');
  process.stderr.write(`service logs: ${logs}\n`);
  const laid = layoutServices(layout, env.WEFT_SERVICE_HEAP_MB);
  const bundles = await serviceBundles((line) => process.stderr.write(`${line}\n`));
  const extraWorkers = layout === 'split' ? Math.max(0, (options.workers ?? 1) - 1) : 0;
  const workerService = laid.find((s) => s.role === 'worker');
  const named = [
    ...laid.map((service) => ({ name: service.role as string, service })),
    ...(workerService
      ? Array.from({ length: extraWorkers }, (_, i) => ({ name: `worker ${i + 2}`, service: workerService }))
      : []),
  ];
  const services = named.map(({ name, service }) => ({
    role: name,
    child: spawnService(
      bundles[service.service],
      { ...serviceEnv, ...service.env },
      {
        nodeArgs: [...service.nodeArgs, ...profiling],
        logFile: path.join(logs, `${name.replace(' ', '-')}.log`),
      },
    ),
  }));
  const childOf = (role: 'api' | 'worker') =>
    (services.find((s) => s.role === role || s.role === 'api+worker') ?? services[0])?.child as ChildProcess;
  // In the combined layout both names refer to the one process.
  const api = childOf('api');
  const worker = childOf('worker');
  const connection = await Connection.connect(
    options.external ? temporalConnectionOptions(env, temporal.address) : { address: temporal.address },
  );
  const client = new Client({
    connection,
    dataConverter: { payloadCodecs: [createEncryptionCodec(env.APP_KEY, env.APP_KEYS_PREVIOUS)] },
  });
  const admin = postgres(database.adminUrl, { max: 8, onnotice: () => {} });
  const base = `http://127.0.0.1:${port}`;
  let organizationId: string | undefined;

  const stopEverything = async () => {
    for (const service of [...services].reverse()) await stopChild(service.child);
    await connection.close();
    await temporal.stop();
    if (organizationId) await admin`delete from organizations where id = ${organizationId}`;
    await admin.end();
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  };
  const stop = stopOnInterrupt(stopEverything);

  try {
    await waitForHttp(`${base}/readyz`, 120_000, () => services.every((s) => s.child.exitCode === null));
    const { createOrganization, createApiKey } = await import('@weft/domain');
    const { connectDatabase } = await import('@weft/db');
    const handle = connectDatabase(database.appUrl, { max: 2 });
    const org = await createOrganization(handle.db, { name: `bench ${new Date().toISOString()}` });
    organizationId = org.id;
    const { key } = await createApiKey({
      ctx: { db: handle.db, organizationId: org.id, actor: {} },
      input: { name: 'bench', permissions: ['*'] },
    });
    await handle.close();
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${url}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (res.status === 204 ? {} : res.json()) as Promise<ApiAnswer>;
    };
    const probe = createCostProbe({
      processes: {
        ...Object.fromEntries(services.map((s) => [s.role, s.child.pid])),
        temporal: temporal.pid,
        postgres: database.embedded ? postmasterPid(dataPath(env, 'postgres')) : undefined,
      },
      metricsUrl,
    });
    return { base, key, call, client, admin, organizationId: org.id, worker, api, layout, env, probe, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>;

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
