import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';

/** A public token's workflow, as `weft_find_hook` answers it (migration 0010). */
export type HookTokenRow = {
  workflow_id: string;
  organization_id: string;
  status: string;
  trigger_type: string;
  trigger_config: Record<string, unknown>;
  hook_count: number;
  window_start: string | Date;
};

/**
 * The workflow behind a public token (an inbound hook's or a hosted form's), across organizations,
 * with the token's request counted in its one-minute window: one round trip.
 */
export async function findHookToken(db: Database, token: string): Promise<HookTokenRow | undefined> {
  const rows = await db.execute<HookTokenRow>(sql`select * from weft_find_hook(${token})`);
  return rows[0];
}
