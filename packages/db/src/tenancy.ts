import { sql } from 'drizzle-orm';
import type { Database, Tx } from './client';

/**
 * The tenancy transaction: every query about an organization's data runs inside it.
 * `set_config(..., true)` is transaction-local, so a pooled connection never carries an
 * organization over to the next request. RLS policies read the setting (weft_current_org()).
 */
export async function withTenant<T>(
  db: Database,
  organizationId: string,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('app.org_id', ${organizationId}, true)`);
    return work(tx);
  });
}
