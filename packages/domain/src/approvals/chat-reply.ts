import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { AppError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { decideApproval } from './decide';

/** `APPROVE K7P2QX`, `reject k7p2qx: not this month`: the verb, the code, then an optional comment. */
const REPLY = /^\s*(approve|reject)\s+([a-z0-9]{6})(?![a-z0-9])[\s:,.;!-]*([\s\S]*)$/i;

/** The decision a chat text makes, if it reads as a reply to an approval. */
export function parseApprovalReply(text: string | null) {
  const match = text ? REPLY.exec(text) : null;
  if (!match) return null;
  const [, verb, code, comment] = match as unknown as [string, string, string, string];
  return {
    decision: verb.toLowerCase() === 'approve' ? ('approve' as const) : ('reject' as const),
    code: code.toUpperCase(),
    comment: comment.trim().slice(0, 2000) || null,
  };
}

/**
 * An inbound chat message that answers an approval's notification (its reply code, from the number
 * the notification went to) decides it, as that number (masked). True when it did: the message is
 * then the decision, not a new conversation turn. Any other message, or a code of another sender or
 * of an approval no longer pending, is an ordinary message (false).
 */
export async function decideByChatReply(
  deps: { db: Database; engine: ExecutionEngine },
  organizationId: string,
  sender: { hash: string; masked: string },
  text: string | null,
): Promise<boolean> {
  const reply = parseApprovalReply(text);
  if (!reply) return false;
  const a = schema.approvals;
  const [approval] = await withTenant(deps.db, organizationId, (tx) =>
    tx
      .select({ id: a.id })
      .from(a)
      .where(
        and(
          eq(a.organizationId, organizationId),
          eq(a.status, 'pending'),
          eq(a.replyCode, reply.code),
          eq(a.chatRecipientHash, sender.hash),
        ),
      ),
  );
  if (!approval) return false;
  try {
    await decideApproval({
      ctx: { db: deps.db, organizationId, actor: {} },
      input: { id: approval.id, decision: reply.decision, comment: reply.comment },
      engine: deps.engine,
      via: 'chat',
      decidedBy: sender.masked,
    });
  } catch (error) {
    // Decided a moment earlier elsewhere, or its execution ended: the reply was still meant for it.
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
  }
  return true;
}
