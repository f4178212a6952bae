import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

export async function migrateCommand(options: { json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  await database.stop();
  printResult(options.json, { migrated: true }, ['Migrations applied.']);
}
