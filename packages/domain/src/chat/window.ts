import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';

/** The 24-hour customer-service window (DESIGN §9): free-form text only while it is open. */
export const CHAT_WINDOW_MS = 24 * 3_600_000;

/** Whether free-form text may go to this person now; the window opens with their last message. */
export async function chatWindow(
  db: Database,
  ref: { organizationId: string; phoneHash: string },
  now = new Date(),
): Promise<{ open: boolean; expiresAt: string | null }> {
  const c = schema.chatConversations;
  const [row] = await withTenant(db, ref.organizationId, (tx) =>
    tx
      .select({ windowExpiresAt: c.windowExpiresAt })
      .from(c)
      .where(and(eq(c.organizationId, ref.organizationId), eq(c.phoneHash, ref.phoneHash))),
  );
  if (!row) return { open: false, expiresAt: null };
  return { open: now < row.windowExpiresAt, expiresAt: row.windowExpiresAt.toISOString() };
}
