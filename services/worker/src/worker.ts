import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Database } from '@weft/db';
import { createOutboundHttpClient } from '@weft/services';
import { createActivities } from '@weft/temporal/activities';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTemporalEngine } from '@weft/temporal/engine';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  db: Database;
  /** CIDRs the HTTP node and polling may reach although private (SSRF_ALLOWLIST). */
  ssrfAllowlist: string[];
  /** APP_KEY: payloads (trigger data, step outputs) are encrypted in Temporal's history with it. */
  appKey: Uint8Array;
  /** Workflow runs kept in memory between tasks (SDK default: ~600 per GB of heap). */
  maxCachedWorkflows?: number;
  /** A prebuilt bundle (`build-bundle.ts`), or bundled code shared across test workers. */
  workflowBundle?: { code: string } | { codePath: string };
}

/** Connects to Temporal and builds the worker (workflow bundle + activities); call `run()` on it. */
export async function createWorker(options: WorkerOptions) {
  const connection = await NativeConnection.connect({ address: options.address });
  const clientConnection = await Connection.connect({ address: options.address });
  const dataConverter = { payloadCodecs: [createEncryptionCodec(options.appKey)] };
  const client = new Client({ connection: clientConnection, namespace: options.namespace, dataConverter });
  const engine = createTemporalEngine({ client, taskQueue: options.taskQueue, db: options.db });
  const http = createOutboundHttpClient({ allowlist: options.ssrfAllowlist });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: fileURLToPath(import.meta.resolve('@weft/temporal/workflows')) }),
    activities: createActivities({ db: options.db, engine, http }),
    dataConverter,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
  return {
    worker,
    async close() {
      await http.close();
      await clientConnection.close();
      await connection.close();
    },
  };
}
