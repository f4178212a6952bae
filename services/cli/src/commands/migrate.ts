import { moveInlineSecretsOf, openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

export async function migrateCommand(options: { json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  try {
    const moved = await moveInlineSecretsOf(database, env.APP_KEY, env.APP_KEYS_PREVIOUS);
    printResult(options.json, { migrated: true, inline_secrets_moved: moved }, [
      'Migrations applied.',
      ...(moved.workflows > 0
        ? [
            `Secrets moved out of ${moved.workflows} workflow(s): ${moved.credentials} credential(s) created, ` +
              `${moved.hookSecrets} hook secret(s) sealed, ${moved.leftInPlace} header(s) left in place.`,
          ]
        : []),
    ]);
  } finally {
    await database.stop();
  }
}
