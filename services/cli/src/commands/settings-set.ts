import { SettingsInput, updateSettings } from '@weft/domain/admin';
import { withAppDatabase } from '../database';
import { printResult } from '../output';

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
  const settings = await withAppDatabase(
    (db) => updateSettings({ ctx: { db, organizationId: options.org, actor: {} }, input }),
    { org: options.org },
  );
  printResult(options.json, settings, [
    'Settings saved.',
    `cart_inactivity_minutes: ${settings.cart_inactivity_minutes}`,
  ]);
}
