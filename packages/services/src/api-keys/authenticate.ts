import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { hashApiKey, isWellFormedApiKey } from './key-format';

export interface Authenticated {
  apiKeyId: string;
  organizationId: string;
  permissions: string[];
  /** Requests counted in the current one-minute window, for the key and for its organization. */
  keyCount: number;
  orgCount: number;
  windowStart: Date;
}

/**
 * Looks a key up by its hash and counts the request against the key's and the organization's
 * rate-limit windows, in one database round trip. Returns null for unknown or revoked keys;
 * a malformed key is refused without touching the database.
 */
export async function authenticateApiKey(db: Database, key: string): Promise<Authenticated | null> {
  if (!isWellFormedApiKey(key)) return null;
  const rows = await db.execute<{
    api_key_id: string;
    organization_id: string;
    permissions: string[];
    key_count: number;
    org_count: number;
    window_start: string | Date;
  }>(sql`select * from weft_authenticate_api_key(${hashApiKey(key)})`);
  const row = rows[0];
  if (!row) return null;
  return {
    apiKeyId: row.api_key_id,
    organizationId: row.organization_id,
    permissions: row.permissions,
    keyCount: row.key_count,
    orgCount: row.org_count,
    windowStart: new Date(row.window_start),
  };
}
