import { connectDatabase } from '@weft/db';
import { CreateApiKeyInput, createApiKey } from '@weft/services';
import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

export async function apiKeyCreateCommand(options: {
  org: string;
  name: string;
  permissions: string;
  json: boolean;
}): Promise<void> {
  const input = CreateApiKeyInput.parse({
    name: options.name,
    permissions: options.permissions
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  });
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    const key = await createApiKey({ ctx: { db: handle.db, organizationId: options.org, actor: {} }, input });
    printResult(options.json, key, [
      `API key created: ${key.name} (${key.permissions.join(', ')})`,
      `id:  ${key.id}`,
      `key: ${key.key}`,
      key.message,
    ]);
  } finally {
    await handle.close();
    await database.stop();
  }
}
