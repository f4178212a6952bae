import { Client, Connection } from '@temporalio/client';
import { connectDatabase } from '@weft/db';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { temporalConnectionOptions } from '@weft/temporal/connection';
import { reconcileTriggerSchedules } from '@weft/temporal/schedules';
import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

/**
 * `weft triggers reconcile`: repairs drift between schedule/polling workflows and their Temporal
 * Schedules now (the worker also does it on start). Temporal: TEMPORAL_ADDRESS, else the dev server
 * `weft up` runs on TEMPORAL_PORT.
 */
export async function triggersReconcileCommand(options: { json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 2 });
  const connection = await Connection.connect(
    temporalConnectionOptions(env, env.TEMPORAL_ADDRESS ?? `127.0.0.1:${env.TEMPORAL_PORT}`),
  );
  try {
    // The same payload codec as API and worker: schedule arguments are encrypted like every payload.
    const client = new Client({
      connection,
      namespace: env.TEMPORAL_NAMESPACE,
      dataConverter: { payloadCodecs: [createEncryptionCodec(env.APP_KEY, env.APP_KEYS_PREVIOUS)] },
    });
    const report = await reconcileTriggerSchedules({
      client,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      db: handle.db,
    });
    printResult(options.json, { ...report }, [
      `created: ${report.created.length}, updated: ${report.updated.length}, paused: ${report.paused.length}, ` +
        `deleted: ${report.deleted.length}, unchanged: ${report.unchanged}, failed: ${report.failed.length}`,
      ...report.failed.map((f) => `  ${f.scheduleId}: ${f.error}`),
    ]);
    if (report.failed.length > 0) process.exitCode = 1;
  } finally {
    await connection.close();
    await handle.close();
    await database.stop();
  }
}
