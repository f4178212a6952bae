import { schema, withTenant } from '@weft/db';
import { desc, sql } from 'drizzle-orm';
import type { ServiceContext } from '../context';
import { type PageRequest, paginate } from '../pagination';

/**
 * The organization's chat contacts: hash, window state, last inbound message. Never a number: only
 * its SHA-256 is stored.
 */
export async function listConversations(ctx: ServiceContext, page: PageRequest) {
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(schema.chatConversations);
    const rows = await tx
      .select()
      .from(schema.chatConversations)
      .orderBy(desc(schema.chatConversations.lastInboundAt))
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage);
    const now = Date.now();
    return paginate(
      rows.map((r) => ({
        id: r.conversationId,
        phone_hash: r.phoneHash,
        last_inbound_at: r.lastInboundAt.toISOString(),
        window_expires_at: r.windowExpiresAt.toISOString(),
        window_open: r.windowExpiresAt.getTime() > now,
      })),
      count?.n ?? 0,
      page,
      '/api/v1/chat/conversations',
      {},
    );
  });
}
