import { loadEnv, WorkerEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { startWorkerRuntime } from './run-worker';

const env = loadEnv(WorkerEnv, process.env);
const { TEMPORAL_ADDRESS } = env;
if (!TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for the worker (weft up sets it).');
if (!env.DATABASE_URL) throw new Error('DATABASE_URL is required for the worker (weft up sets it).');
const database = connectDatabase(env.DATABASE_URL, { max: env.DATABASE_POOL_SIZE });
const { done } = await startWorkerRuntime({ ...env, TEMPORAL_ADDRESS }, database.db);
// Worker.run() resolves after SIGINT/SIGTERM: the SDK installs the signal handlers and drains tasks.
await done;
await database.close();
