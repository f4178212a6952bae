/**
 * Every place a value sealed with the SecretBox (APP_KEY) is stored: the one list `weft keys rotate`
 * walks. A new sealed column is one more entry here, and one more line in the start-up check's
 * sample (the SQL function weft_sealed_value_samples, in a migration); the key-ring test fails
 * while the two lists disagree.
 */
export interface SealedColumn {
  /** How reports name it: `table.column`, or `table.column.key` for a value inside a jsonb column. */
  name: string;
  table: string;
  /** The primary key, for paging through the table in batches. */
  keys: readonly string[];
  column: string;
  /** Set when the sealed value is this key of a jsonb object column (null or absent: nothing sealed). */
  jsonKey?: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { name: 'credentials.secret_ciphertext', table: 'credentials', keys: ['id'], column: 'secret_ciphertext' },
  {
    name: 'organization_modules.secret_ciphertext',
    table: 'organization_modules',
    keys: ['organization_id', 'module'],
    column: 'secret_ciphertext',
  },
  { name: 'webhooks.secret_ciphertext', table: 'webhooks', keys: ['id'], column: 'secret_ciphertext' },
  { name: 'users.totp_secret_ciphertext', table: 'users', keys: ['id'], column: 'totp_secret_ciphertext' },
  {
    name: 'workflows.trigger_config.secret_ciphertext',
    table: 'workflows',
    keys: ['id'],
    column: 'trigger_config',
    jsonKey: 'secret_ciphertext',
  },
];
