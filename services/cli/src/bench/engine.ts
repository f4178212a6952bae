import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { resolveTemporalCli, startDevServer } from '@weft/temporal/dev-server';
import postgres from 'postgres';
import { runStep, spawnService, stopChild, waitForHttp } from '../children';
import { openDatabase } from '../database';
import { freePortOnLoopback } from '../free-port';
import { loadCliEnv, PROJECT_ROOT } from '../project';
import { percentile } from './load';
import { processMemory } from './process-memory';

/** The fields of API answers the bench reads. */
interface ApiAnswer {
  id: string;
  execution_ids: string[];
  workflows_triggered: number;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const TASK_QUEUE = 'weft-bench';

const FOUR_NODES = {
  name: 'bench four nodes',
  status: 'active',
  trigger_type: 'event',
  trigger_config: { event: 'bench.tick' },
  nodes: [
    {
      id: 'prepare',
      type: 'action.transform',
      config: { assignments: [{ key: 'total', value: '{{trigger.total}}' }] },
    },
    {
      id: 'check',
      type: 'action.condition',
      config: { conditions: [{ left: '{{nodes.prepare.total}}', operator: 'gt', right: '100' }] },
    },
    { id: 'big', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'big' }] } },
    { id: 'small', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'small' }] } },
  ],
  edges: [
    { source: 'prepare', target: 'check' },
    { source: 'check', target: 'big', source_handle: 'true' },
    { source: 'check', target: 'small', source_handle: 'false' },
  ],
};

/** Runs `total` tasks with `concurrency` in flight; returns per-task latencies (ms) and elapsed seconds. */
async function closedLoop(total: number, concurrency: number, task: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    seconds,
  };
}

/**
 * `weft bench engine`: a fresh Temporal dev server, the project's PostgreSQL, a worker process and an
 * API process, all on this machine. (a) raw Temporal no-op workflows; (b) POST /events → a 4-node
 * workflow → terminal; (c) the ratio; (d) one event fanned out to 500 workflows; (e) worker memory
 * with 1,000 executions waiting on a delay.
 */
export async function benchEngineCommand(options: {
  sqliteSynchronous?: 'NORMAL' | 'OFF';
  executions: number;
  concurrency: number[];
  fanout: number;
  waiting: number;
}) {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-temporal-'));
  const temporal = await startDevServer({
    cli: await resolveTemporalCli(env.TEMPORAL_CLI, PROJECT_ROOT),
    dbFile: path.join(dir, 'temporal.db'),
    port: await freePortOnLoopback(),
    uiPort: await freePortOnLoopback(),
    namespace: 'default',
    sqliteSynchronous: options.sqliteSynchronous,
  });
  const port = await freePortOnLoopback();
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await runStep(path.join(PROJECT_ROOT, 'services/worker/src/build-bundle.ts'), [bundlePath]);
  const serviceEnv = {
    WORKFLOW_BUNDLE_PATH: bundlePath,
    DATABASE_URL: database.appUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    PORT: String(port),
    APP_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_PER_KEY: '1000000000',
    RATE_LIMIT_PER_ORG: '1000000000',
    DATABASE_POOL_SIZE: '20',
  };
  const worker = spawnService(path.join(PROJECT_ROOT, 'services/worker/src/main.ts'), serviceEnv);
  const api = spawnService(path.join(PROJECT_ROOT, 'services/api/src/main.ts'), serviceEnv);
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({
    connection,
    dataConverter: { payloadCodecs: [createEncryptionCodec(env.APP_KEY)] },
  });
  const admin = postgres(database.adminUrl, { max: 2, onnotice: () => {} });
  const base = `http://127.0.0.1:${port}`;
  let organizationId: string | undefined;
  try {
    await waitForHttp(`${base}/readyz`, 120_000, () => api.exitCode === null && worker.exitCode === null);
    const { createOrganization, createApiKey } = await import('@weft/services');
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
      return res.json() as Promise<ApiAnswer>;
    };
    await call('POST', '/workflows', FOUR_NODES);

    // Warm-up: the worker's first workflow tasks load the bundle.
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/events', { event: 'bench.tick', payload: { total: i } });
      await client.workflow.getHandle(`exec-${r.execution_ids[0]}`).result();
    }

    process.stdout.write(
      `\n${'scenario'.padEnd(44)} ${'conc'.padStart(4)} ${'exec/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}\n`,
    );
    const row = (name: string, c: number, r: { perSecond: number; p50: number; p99: number }) =>
      process.stdout.write(
        `${name.padEnd(44)} ${String(c).padStart(4)} ${fmt(r.perSecond).padStart(8)} ${fmt(r.p50, 2).padStart(8)} ${fmt(r.p99, 2).padStart(8)}\n`,
      );

    const raw: Record<number, number> = {};
    for (const c of options.concurrency) {
      const r = await closedLoop(options.executions, c, async (i) => {
        await client.workflow.execute('noop', {
          workflowId: `noop-${c}-${i}-${Date.now()}`,
          taskQueue: TASK_QUEUE,
        });
      });
      raw[c] = r.perSecond;
      row('(a) Temporal no-op workflow', c, r);
    }
    const flow: Record<number, number> = {};
    for (const c of options.concurrency) {
      const r = await closedLoop(options.executions, c, async (i) => {
        const accepted = await call('POST', '/events', { event: 'bench.tick', payload: { total: i % 200 } });
        const result = await client.workflow.getHandle(`exec-${accepted.execution_ids[0]}`).result();
        if (result.status !== 'success') throw new Error(`execution ended ${result.status}`);
      });
      flow[c] = r.perSecond;
      row('(b) POST /events → 4-node workflow → done', c, r);
    }
    for (const c of options.concurrency) {
      process.stdout.write(
        `(c) ratio (b)/(a) at concurrency ${c}: ${fmt((flow[c] ?? 0) / (raw[c] ?? 1), 2)}\n`,
      );
    }

    // (d) fan-out
    for (let i = 0; i < options.fanout; i++) {
      await call('POST', '/workflows', {
        ...FOUR_NODES,
        name: `fan ${i}`,
        trigger_config: { event: 'bench.fanout' },
      });
    }
    const t0 = performance.now();
    const accepted = await call('POST', '/events', { event: 'bench.fanout', payload: { total: 500 } });
    const acceptedMs = performance.now() - t0;
    for (;;) {
      const [row] =
        await admin`select count(*)::int as n from executions where organization_id = ${org.id} and event = 'bench.fanout' and status in ('success','partial','failed','cancelled')`;
      if ((row?.n ?? 0) >= accepted.workflows_triggered) break;
      if (performance.now() - t0 > 600_000) throw new Error('fan-out did not finish in 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    process.stdout.write(
      `(d) fan-out to ${accepted.workflows_triggered} workflows: 202 in ${fmt(acceptedMs)} ms, all terminal after ${fmt((performance.now() - t0) / 1000, 2)} s\n`,
    );

    // (e) executions parked on a delay
    const sleeper = await call('POST', '/workflows', {
      name: 'bench sleeper',
      trigger_type: 'manual',
      nodes: [{ id: 'nap', type: 'action.delay', config: { duration: '1h' } }],
    });
    const before = worker.pid ? processMemory(worker.pid) : undefined;
    await closedLoop(options.waiting, 32, async () => {
      await call('POST', `/workflows/${sleeper.id}/execute`, { input: {} });
    });
    for (;;) {
      const [row] =
        await admin`select count(*)::int as n from executions where organization_id = ${org.id} and workflow_id = ${sleeper.id} and status = 'waiting'`;
      if ((row?.n ?? 0) >= options.waiting) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = worker.pid ? processMemory(worker.pid) : undefined;
    process.stdout.write(
      `(e) ${options.waiting} executions waiting on a delay: worker RSS ${fmt(after?.rssMiB ?? Number.NaN)} MiB (before ${fmt(before?.rssMiB ?? Number.NaN)} MiB, peak ${fmt(after?.peakMiB ?? Number.NaN)} MiB)\n`,
    );
    const apiMemory = api.pid ? processMemory(api.pid) : undefined;
    process.stdout.write(`API server RSS ${fmt(apiMemory?.rssMiB ?? Number.NaN)} MiB\n`);
  } finally {
    await stopChild(api);
    await stopChild(worker);
    await connection.close();
    await temporal.stop();
    if (organizationId) await admin`delete from organizations where id = ${organizationId}`;
    await admin.end();
    await database.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
