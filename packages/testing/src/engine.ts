import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createApp } from '@weft/api';
import { createApiKey, createOrganization } from '@weft/services';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTemporalEngine } from '@weft/temporal/engine';
import { createWorker } from '@weft/worker';
import { createTestDatabase, type TestDatabase } from './database';
import { startTemporalDevServer, workflowBundle } from './temporal';

export interface EngineHarness {
  db: TestDatabase;
  temporal: TestWorkflowEnvironment;
  /** A Temporal client with the harness's payload codec. */
  client: Client;
  app: ReturnType<typeof createApp>;
  request(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<Response>;
  createOrg(name?: string): Promise<{ organizationId: string; key: string }>;
  /** Polls GET /executions/{id} until `done(execution)` or the timeout. */
  waitForExecution(
    key: string,
    id: string,
    done?: (execution: any) => boolean,
    timeoutMs?: number,
  ): Promise<any>;
  /** Stops the worker (as a crash would, for durability tests) and starts a new one. */
  restartWorker(): Promise<void>;
  close(): Promise<void>;
}

const TERMINAL = new Set(['success', 'partial', 'failed', 'cancelled']);

/**
 * The whole engine on real servers: a fresh PostgreSQL database, a Temporal dev server, a worker
 * running the real workflow bundle and activities, and the API app with the Temporal engine.
 */
export async function createEngineHarness(
  options: { ssrfAllowlist?: string[] } = {},
): Promise<EngineHarness> {
  const [db, temporal, bundle] = await Promise.all([
    createTestDatabase(),
    startTemporalDevServer(),
    workflowBundle(),
  ]);
  const taskQueue = 'weft';
  const appKey = randomBytes(32);
  // The same encryption as production: the API's client and the worker share the key.
  const client = new Client({
    connection: temporal.connection,
    namespace: temporal.namespace ?? 'default',
    dataConverter: { payloadCodecs: [createEncryptionCodec(appKey)] },
  });
  const engine = createTemporalEngine({ client, taskQueue, db: db.app.db });
  const app = createApp({
    db: db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1_000_000,
      RATE_LIMIT_PER_ORG: 1_000_000,
      TRUST_PROXY_HOPS: 0,
      TEMPORAL_UI_URL: 'http://localhost:8233',
    },
    temporalReady: async () => true,
    engine,
    logError: (error) => console.error(error),
  });

  let running: { stop: () => Promise<void> } | undefined;
  const startWorker = async () => {
    const { worker, close } = await createWorker({
      address: temporal.address,
      namespace: temporal.namespace ?? 'default',
      taskQueue,
      db: db.app.db,
      ssrfAllowlist: options.ssrfAllowlist ?? [],
      appKey,
      workflowBundle: bundle,
    });
    const done = worker.run();
    running = {
      async stop() {
        worker.shutdown();
        await done;
        await close();
      },
    };
  };
  await startWorker();

  const request: EngineHarness['request'] = (method, path, { key, body } = {}) => {
    const headers: Record<string, string> = {};
    if (key) headers['X-Api-Key'] = key;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return Promise.resolve(
      app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
  };

  return {
    db,
    temporal,
    client,
    app,
    request,
    async createOrg(name = 'Acme') {
      const org = await createOrganization(db.app.db, { name });
      const created = await createApiKey({
        ctx: { db: db.app.db, organizationId: org.id, actor: {} },
        input: { name: 'engine test', permissions: ['*'] },
      });
      return { organizationId: org.id, key: created.key };
    },
    async waitForExecution(key, id, done = (e) => TERMINAL.has(e.status), timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last: any;
      while (Date.now() < deadline) {
        const res = await request('GET', `/api/v1/executions/${id}`, { key });
        last = await res.json();
        if (res.status === 200 && done(last)) return last;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`execution ${id} did not reach the expected state: ${JSON.stringify(last)}`);
    },
    async restartWorker() {
      await running?.stop();
      await startWorker();
    },
    async close() {
      await running?.stop();
      await temporal.teardown();
      await db.drop();
    },
  };
}
