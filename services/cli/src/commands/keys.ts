import { connectDatabase } from '@weft/db';
import { createSecretBox, keyRingRefusal, rotateSealedValues } from '@weft/domain/admin';
import { checkKeyRingOf, openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

/**
 * `weft keys rotate`: every stored secret re-sealed with APP_KEY (docs/key-custody.md). Runs on the
 * owner connection, which sees every organization. Exit 1 when a value opened with no key of the ring.
 */
export async function keysRotateCommand(options: { batchSize: number; json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.adminUrl, { max: 1 });
  try {
    const box = createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS);
    const started = performance.now();
    const report = await rotateSealedValues(handle.db, box, { batchSize: options.batchSize });
    const seconds = (performance.now() - started) / 1000;
    const { total } = report;
    printResult(
      options.json,
      {
        key_id: report.keyId,
        seconds: Number(seconds.toFixed(3)),
        columns: report.columns.map(({ alreadyCurrent, ...c }) => ({
          ...c,
          already_current: alreadyCurrent,
        })),
        total: (({ alreadyCurrent, ...t }) => ({ ...t, already_current: alreadyCurrent }))(total),
      },
      [
        ...report.columns.map(
          (c) =>
            `${c.column}: ${c.scanned} sealed, ${c.rotated} re-sealed, ${c.alreadyCurrent} already current` +
            (c.unreadable > 0 ? `, ${c.unreadable} opened by no key` : ''),
        ),
        `Total: ${total.rotated} of ${total.scanned} re-sealed with APP_KEY ${report.keyId} ` +
          `(${total.alreadyCurrent} already current) in ${seconds.toFixed(1)} s.`,
        ...(total.unreadable === 0 && total.scanned > 0
          ? ['Every sealed value now opens with APP_KEY alone: APP_KEYS_PREVIOUS can be emptied.']
          : []),
      ],
    );
    if (total.unreadable > 0) {
      throw new Error(
        `${total.unreadable} sealed value(s) open with no key of the ring and were left as they were: ` +
          'add the key that sealed them to APP_KEYS_PREVIOUS and run this again',
      );
    }
  } finally {
    await handle.close();
    await database.stop();
  }
}

/** `weft keys check`: the start-up check of the API and worker, on its own (exit 1 when it refuses). */
export async function keysCheckCommand(options: { json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  try {
    const check = await checkKeyRingOf(database, env);
    const refusal = keyRingRefusal(check);
    if (refusal) throw new Error(refusal);
    printResult(options.json, { sampled: check.sampled, opened: check.opened, sources: check.sources }, [
      check.sampled === 0
        ? 'Nothing is sealed yet: any APP_KEY fits.'
        : `The key ring opens ${check.opened} of ${check.sampled} sealed values sampled.`,
    ]);
  } finally {
    await database.stop();
  }
}
