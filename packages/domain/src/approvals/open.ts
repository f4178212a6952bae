import { createHash, randomInt } from 'node:crypto';
import { type Database, schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { randomToken } from '../random-token';
import type { ApprovalDecision, ApprovalOutcome } from './types';

export interface OpenApprovalInput {
  organizationId: string;
  executionId: string;
  workflowId: string;
  nodeId: string;
  /** `<step key>[:<tool call id>]`: the same key finds the same approval (activity retries, replays). */
  requestKey: string;
  title: string;
  message: string;
  /** The deadline as the workflow computed it; absent waits for ever. */
  expiresAt?: string;
  /** Whether a chat notification goes out (then the approval gets a reply code). */
  chatRecipientHash?: string;
}

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
const REPLY_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function replyCode(): string {
  return Array.from({ length: 6 }, () => REPLY_CODE_ALPHABET[randomInt(REPLY_CODE_ALPHABET.length)]).join('');
}

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Records the approval a waiting step asks for, once per request key: a retried activity gets the
 * row it created. Answers its id, its reply code and, when it was already decided (a retry after the
 * decision), the decision.
 */
export async function openApproval(db: Database, input: OpenApprovalInput) {
  return withTenant(db, input.organizationId, async (tx) => {
    const a = schema.approvals;
    const [existing] = await tx
      .select()
      .from(a)
      .where(and(eq(a.organizationId, input.organizationId), eq(a.requestKey, input.requestKey)));
    if (existing) return { id: existing.id, replyCode: existing.replyCode, outcome: outcomeOf(existing) };
    // A pending reply code is unique in the organization: draw again on the rare collision.
    for (let attempt = 0; ; attempt++) {
      const code = input.chatRecipientHash ? replyCode() : null;
      const [row] = await tx
        .insert(a)
        .values({
          organizationId: input.organizationId,
          executionId: input.executionId,
          workflowId: input.workflowId,
          nodeId: input.nodeId,
          requestKey: input.requestKey,
          title: input.title,
          message: input.message,
          status: 'pending',
          expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
          replyCode: code,
          chatRecipientHash: input.chatRecipientHash ?? null,
        })
        .onConflictDoNothing()
        .returning();
      if (row) return { id: row.id, replyCode: row.replyCode, outcome: null };
      if (attempt >= 5) throw new Error('could not draw a free approval reply code');
    }
  });
}

/**
 * A new signed link for one recipient of the approval's e-mail: a random token, of which only the
 * SHA-256 is kept (with the recipient it names). Deciding through it needs the approval pending.
 */
export async function issueApprovalLink(
  db: Database,
  args: { organizationId: string; approvalId: string; recipient: string },
): Promise<string> {
  const token = randomToken();
  const entry = JSON.stringify({ [sha256Hex(token)]: args.recipient });
  await withTenant(db, args.organizationId, (tx) =>
    tx
      .update(schema.approvals)
      .set({ linkTokens: sql`${schema.approvals.linkTokens} || ${entry}::jsonb` })
      .where(eq(schema.approvals.id, args.approvalId)),
  );
  return token;
}

type ApprovalRow = typeof schema.approvals.$inferSelect;

/** What a decided row tells the workflow; null while pending. A timed-out row decides by `onTimeout`. */
export function outcomeOf(row: ApprovalRow, onTimeout: ApprovalDecision = 'reject'): ApprovalOutcome | null {
  if (row.status === 'pending') return null;
  return {
    approval_id: row.id,
    decision: row.status === 'approved' ? 'approve' : row.status === 'rejected' ? 'reject' : onTimeout,
    decided_by: row.decidedBy ?? 'timeout',
    comment: row.comment,
    decided_at: (row.decidedAt ?? new Date()).toISOString(),
    via: row.decidedVia ?? 'timeout',
  };
}

/**
 * The deadline passed in the workflow: the approval ends `timed_out`, unless a decision was written
 * first (it then wins, as it would have had its signal arrived a moment earlier).
 */
export async function settleApprovalAtDeadline(
  db: Database,
  args: { organizationId: string; approvalId: string; onTimeout: ApprovalDecision },
): Promise<ApprovalOutcome> {
  return withTenant(db, args.organizationId, async (tx) => {
    const a = schema.approvals;
    const [timedOut] = await tx
      .update(a)
      .set({ status: 'timed_out', decidedBy: 'timeout', decidedVia: 'timeout', decidedAt: new Date() })
      .where(and(eq(a.id, args.approvalId), eq(a.status, 'pending')))
      .returning();
    const [row] = timedOut ? [timedOut] : await tx.select().from(a).where(eq(a.id, args.approvalId));
    if (!row) throw new Error(`approval ${args.approvalId} not found`);
    return outcomeOf(row, args.onTimeout) as ApprovalOutcome;
  });
}
