import { createHash } from 'node:crypto';
import { type Database, schema, type Tx, withTenant } from '@weft/db';
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { VerifiedSignature } from '../webhooks/signing';

/**
 * Inbound hook receipts: what makes a repeated request start nothing (table `hook_receipts`).
 *
 * - A `webhook-id` (Standard Webhooks; also honoured on hooks without a secret) is a sender's
 *   message id, the same on its retries: a repeat is answered exactly as the first request was
 *   (202, the same execution ids) and starts nothing.
 * - A body-only `X-Webhook-Signature` carries no timestamp, so a captured request would otherwise be
 *   replayable forever: the same signature (= the same body) is refused (409) within the window.
 *   Senders using that header must make each body unique (an id or a timestamp in it).
 *
 * The window outlasts common senders' retry schedules (Weft's own 24 h, Svix about 28 h, Stripe's
 * three days), so a late retry is still recognised; older receipts are pruned by the worker.
 */
export const HOOK_RECEIPT_WINDOW_HOURS = 72;
const WINDOW = sql.raw(`interval '${HOOK_RECEIPT_WINDOW_HOURS} hours'`);

export interface ReceiptKey {
  kind: 'webhook_id' | 'signature';
  /** SHA-256 of what identifies the request: only a hash is stored, whatever its length. */
  keyHash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Which receipt identifies this request, if any: the verified form decides; unsigned hooks use webhook-id. */
export function receiptKeyOf(
  verified: VerifiedSignature | null,
  headers: { get(name: string): string | null | undefined },
): ReceiptKey | null {
  if (verified?.form === 'legacy') return { kind: 'signature', keyHash: sha256(verified.signature) };
  const messageId = verified?.form === 'standard' ? verified.messageId : headers.get('webhook-id');
  return messageId ? { kind: 'webhook_id', keyHash: sha256(messageId) } : null;
}

interface ReceiptOwner {
  organizationId: string;
  workflowId: string;
}

/** The executions an earlier request with this key started, or null when none within the window. */
export async function findHookReceipt(
  db: Database,
  owner: ReceiptOwner,
  key: ReceiptKey,
): Promise<string[] | null> {
  const r = schema.hookReceipts;
  const [row] = await withTenant(db, owner.organizationId, (tx) =>
    tx
      .select({ executionIds: r.executionIds })
      .from(r)
      .where(
        and(
          eq(r.workflowId, owner.workflowId),
          eq(r.kind, key.kind),
          eq(r.keyHash, key.keyHash),
          gt(r.receivedAt, sql`now() - ${WINDOW}`),
        ),
      ),
  );
  return row ? row.executionIds : null;
}

/**
 * Records the receipt inside the publish transaction; false when another request with the same key
 * got there first (the primary key makes a concurrent twin wait for that commit, then lose). A
 * receipt older than the window that the pruner has not reached yet is taken over.
 */
export async function recordHookReceipt(
  tx: Tx,
  owner: ReceiptOwner,
  key: ReceiptKey,
  executionIds: string[],
): Promise<boolean> {
  const r = schema.hookReceipts;
  const claimed = await tx
    .insert(r)
    .values({ ...owner, ...key, executionIds })
    .onConflictDoUpdate({
      target: [r.workflowId, r.kind, r.keyHash],
      set: { executionIds, receivedAt: sql`now()` },
      setWhere: lt(r.receivedAt, sql`now() - ${WINDOW}`),
    })
    .returning({ keyHash: r.keyHash });
  return claimed.length > 0;
}

/**
 * Forgets the receipt of a request that failed after its transaction committed (Temporal refused the
 * start: the caller answers 5xx), so that the sender's retry runs again, as a 5xx releases an
 * Idempotency-Key. Only this request's row: a twin's (other execution ids) stays.
 */
export async function releaseHookReceipt(
  db: Database,
  owner: ReceiptOwner,
  key: ReceiptKey,
  executionIds: string[],
): Promise<void> {
  const r = schema.hookReceipts;
  await withTenant(db, owner.organizationId, (tx) =>
    tx
      .delete(r)
      .where(
        and(
          eq(r.workflowId, owner.workflowId),
          eq(r.kind, key.kind),
          eq(r.keyHash, key.keyHash),
          sql`${r.executionIds} = ${`{${executionIds.join(',')}}`}::uuid[]`,
        ),
      ),
  );
}

/** Rows pruned per statement: bounded, so one run never holds a long transaction. */
const PRUNE_BATCH = 5000;

/**
 * Forgets receipts older than the window, in every organization (a reviewed SECURITY DEFINER
 * function, migration 0027), a batch at a time until none is left. Returns how many went.
 */
export async function pruneHookReceipts(db: Database): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await db.execute<{ pruned: number }>(
      sql`select weft_prune_hook_receipts(${WINDOW}, ${PRUNE_BATCH}) as pruned`,
    );
    const pruned = row?.pruned ?? 0;
    total += pruned;
    if (pruned < PRUNE_BATCH) return total;
  }
}
