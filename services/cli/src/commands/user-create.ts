import { connectDatabase } from '@weft/db';
import { createUser } from '@weft/services';
import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

export async function userCreateCommand(options: {
  org: string;
  email: string;
  password: string;
  role: 'admin' | 'editor' | 'viewer' | 'member';
  json: boolean;
}): Promise<void> {
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    const user = await createUser({
      ctx: { db: handle.db, organizationId: options.org, actor: {} },
      input: { email: options.email, password: options.password, role: options.role },
    });
    printResult(options.json, user, [`User created: ${user.email} (${user.role})`, `id: ${user.id}`]);
  } finally {
    await handle.close();
    await database.stop();
  }
}
