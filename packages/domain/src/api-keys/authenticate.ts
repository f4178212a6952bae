import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { hashApiKey, isWellFormedApiKey } from './key-format';

/** Units of a rate-limit window reserved by one call, and the bucket's count after it. */
export interface Reservation {
  granted: number;
  count: number;
}

/** How many units to reserve per bucket (0: leave the bucket alone) and the limits not to pass. */
export interface ReservationRequest {
  keyUnits: number;
  orgUnits: number;
  keyLimit: number;
  orgLimit: number;
}

export interface Authenticated {
  apiKeyId: string;
  organizationId: string;
  permissions: string[];
  /** Null for a bucket that was asked for 0 units. */
  key: Reservation | null;
  org: Reservation | null;
  /** Start of the current one-minute window and the time, both by the database's clock. */
  windowStart: Date;
  databaseNow: Date;
}

/**
 * Looks a key up by its hash and reserves units of the key's and the organization's rate-limit
 * windows, in one database round trip. Returns null for unknown or revoked keys; a malformed key is
 * refused without touching the database. A reservation never passes a limit: `granted` may be less
 * than asked, 0 once the window is used up.
 */
export async function authenticateApiKey(
  db: Database,
  key: string,
  reserve: ReservationRequest,
): Promise<Authenticated | null> {
  if (!isWellFormedApiKey(key)) return null;
  const rows = await db.execute<{
    api_key_id: string;
    organization_id: string;
    permissions: string[];
    key_granted: number;
    key_count: number | null;
    org_granted: number;
    org_count: number | null;
    window_start: string | Date;
    db_now: string | Date;
  }>(
    sql`select * from weft_authenticate_api_key(${hashApiKey(key)}, ${reserve.keyUnits}, ${reserve.orgUnits}, ${reserve.keyLimit}, ${reserve.orgLimit})`,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    apiKeyId: row.api_key_id,
    organizationId: row.organization_id,
    permissions: row.permissions,
    key: row.key_count === null ? null : { granted: row.key_granted, count: row.key_count },
    org: row.org_count === null ? null : { granted: row.org_granted, count: row.org_count },
    windowStart: new Date(row.window_start),
    databaseNow: new Date(row.db_now),
  };
}
