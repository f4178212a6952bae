import { connectDatabase, postgresErrorCode } from '@weft/db';
import { isUuid, notFound, SettingsInput, updateSettings } from '@weft/services';
import { openDatabase } from '../database';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

const FOREIGN_KEY_VIOLATION = '23503';

/** `weft settings set --org O --cart-inactivity-minutes N`: the CLI side of PUT /settings. */
export async function settingsSetCommand(options: {
  org: string;
  cartInactivityMinutes: string | undefined;
  json: boolean;
}): Promise<void> {
  const input = SettingsInput.parse({
    cart_inactivity_minutes:
      options.cartInactivityMinutes === undefined ? undefined : Number(options.cartInactivityMinutes),
  });
  if (!isUuid(options.org)) throw notFound('Organization');
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 1 });
  try {
    const settings = await updateSettings({
      ctx: { db: handle.db, organizationId: options.org, actor: {} },
      input,
    }).catch((error: unknown) => {
      // The settings row references its organization: a missing one fails the foreign key.
      throw postgresErrorCode(error) === FOREIGN_KEY_VIOLATION ? notFound('Organization') : error;
    });
    printResult(options.json, settings, [
      'Settings saved.',
      `cart_inactivity_minutes: ${settings.cart_inactivity_minutes}`,
    ]);
  } finally {
    await handle.close();
    await database.stop();
  }
}
