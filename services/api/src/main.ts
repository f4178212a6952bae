import { Client, Connection } from '@temporalio/client';
import { ApiEnv, loadEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { parseAllowlist } from '@weft/services';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTemporalEngine } from '@weft/temporal/engine';
import { createApp } from './app';
import { createHttpServer } from './server';

const env = loadEnv(ApiEnv, process.env);
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the API server (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });

let temporal: Promise<Connection> | undefined;
const temporalReady = async () => {
  if (!env.TEMPORAL_ADDRESS) return false;
  temporal ??= Connection.connect({ address: env.TEMPORAL_ADDRESS, connectTimeout: 2000 }).catch((error) => {
    temporal = undefined;
    throw error;
  });
  await (await temporal).workflowService.getSystemInfo({});
  return true;
};

// The engine's client connects lazily: the API starts (and answers /readyz with 503) before Temporal does.
const temporalClient = new Client({
  connection: Connection.lazy({ address: env.TEMPORAL_ADDRESS ?? 'localhost:7233' }),
  namespace: env.TEMPORAL_NAMESPACE,
  dataConverter: { payloadCodecs: [createEncryptionCodec(env.APP_KEY)] },
});
const engine = createTemporalEngine({
  client: temporalClient,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  db: database.db,
});
const app = createApp({
  db: database.db,
  env,
  temporalReady,
  engine,
  appKey: env.APP_KEY,
  ssrfAllowlist: parseAllowlist(env.SSRF_ALLOWLIST),
});
const server = createHttpServer(app);
server.keepAliveTimeout = 65_000;
server.listen(env.PORT, () => console.log(`[api] listening on ${env.APP_URL} (port ${env.PORT})`));

async function shutdown() {
  server.close();
  server.closeIdleConnections();
  await database.close();
  await (await temporal?.catch(() => undefined))?.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
