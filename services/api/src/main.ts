import { Connection } from '@temporalio/client';
import { ApiEnv, loadEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
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

const app = createApp({ db: database.db, env, temporalReady });
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
