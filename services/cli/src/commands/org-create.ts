import { connectDatabase } from '@weft/db';
import { createOrganization } from '@weft/domain/admin';
import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

export async function orgCreateCommand(options: { name: string; json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    const org = await createOrganization(handle.db, { name: options.name });
    printResult(options.json, org, [`Organization created: ${org.name}`, `id: ${org.id}`]);
  } finally {
    await handle.close();
    await database.stop();
  }
}
