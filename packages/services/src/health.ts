import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';

/** Resolves when PostgreSQL answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
