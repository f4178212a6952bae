import { type Database, schema, withTenant } from '@weft/db';
import { and, eq, inArray } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { Actor, VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { isUuid } from '../text';
import { outcomeOf } from './open';
import { presentApproval } from './present';
import type { ApprovalDecision, ApprovalOutcome } from './types';

/** Executions in these states still wait (a parallel branch may keep one `running` while a step waits). */
const LIVE_EXECUTION = ['pending', 'running', 'waiting'] as const;

/** Who an actor is, as an approval shows it: the user's e-mail or the API key's name. */
async function actorName(db: Database, organizationId: string, actor: Actor): Promise<string> {
  if (actor.userId) {
    const [user] = await db
      .select({ email: schema.users.email })
      .from(schema.users)
      .where(eq(schema.users.id, actor.userId));
    if (user) return user.email;
  }
  if (actor.apiKeyId) {
    const [key] = await withTenant(db, organizationId, (tx) =>
      tx
        .select({ name: schema.apiKeys.name })
        .from(schema.apiKeys)
        .where(eq(schema.apiKeys.id, actor.apiKeyId as string)),
    );
    if (key) return `API key ${key.name}`;
  }
  return 'unknown';
}

export interface DecideInput {
  id: string;
  decision: ApprovalDecision;
  comment?: string | null;
}

/**
 * Writes a decision, first writer wins (a decided approval is a 409, after signalling the recorded
 * decision again to an execution still waiting: the first signal may have failed), then signals it to
 * the waiting execution. `via` and `decidedBy` name a decision from outside the app (a signed link, a chat reply);
 * otherwise the acting user or key decides through the app.
 */
export async function decideApproval({
  ctx,
  input,
  engine,
  via = 'app',
  decidedBy,
}: VerbArgs<DecideInput> & {
  engine: ExecutionEngine;
  via?: ApprovalOutcome['via'];
  decidedBy?: string;
}) {
  if (!isUuid(input.id)) throw notFound('Approval');
  const who = decidedBy ?? (await actorName(ctx.db, ctx.organizationId, ctx.actor));
  const a = schema.approvals;
  const result = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(a)
      .where(and(eq(a.id, input.id), eq(a.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Approval');
    const [live] = await tx
      .select({ id: schema.executions.id })
      .from(schema.executions)
      .where(
        and(
          eq(schema.executions.id, existing.executionId),
          inArray(schema.executions.status, LIVE_EXECUTION),
        ),
      );
    if (existing.status !== 'pending')
      return { already: true as const, row: existing, stillWaiting: Boolean(live) };
    if (!live) throw new AppError('conflict', 'The execution waiting for this approval has ended.');
    const [updated] = await tx
      .update(a)
      .set({
        status: input.decision === 'approve' ? 'approved' : 'rejected',
        decidedBy: who,
        decidedVia: via,
        comment: input.comment ?? null,
        decidedAt: new Date(),
      })
      .where(eq(a.id, input.id))
      .returning();
    // Who let what through stays on the audit trail (a link's or chat reply's decider has no user id).
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'approval',
      entityId: existing.id,
      oldValues: { status: existing.status },
      newValues: { status: updated?.status, decided_by: who, via, comment: input.comment ?? null },
    });
    return { already: false as const, row: updated ?? existing };
  });
  const row = result.row;
  if (result.already) {
    // The decision was committed but its signal may have failed (the engine was down): while the
    // execution still waits, signal the recorded decision again (the handler takes it once), so a
    // retry does not leave the workflow waiting for ever. The caller still learns it was decided.
    if (result.stillWaiting) await engine.deliverApproval(row.executionId, outcomeOf(row) as ApprovalOutcome);
    throw new AppError('conflict', `This approval was already decided (${row.status}).`);
  }
  await engine.deliverApproval(row.executionId, outcomeOf(row) as ApprovalOutcome);
  return presentApproval(row);
}
