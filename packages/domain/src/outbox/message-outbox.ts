import { type Database, withTenant } from '@weft/db';
import { sql } from 'drizzle-orm';

/** What a step finds when it is about to send: send now, answer what was sent, or do not know. */
export type OutboxClaim = { state: 'claimed' } | { state: 'sent'; result: unknown } | { state: 'unknown' };

interface OutboxRef {
  organizationId: string;
  stepKey: string;
}

/**
 * Before a provider call (DESIGN §12.1): records `sending` for the step, or finds the earlier attempt.
 * `sent` means a previous attempt finished (answer its result, send nothing); `sending` left by an
 * attempt that died mid-call is `unknown` (the provider may have the message: never send it again);
 * a `failed` one (refused before the provider took the message) is claimed again.
 */
export async function claimOutboxMessage(
  db: Database,
  ref: OutboxRef & { channel: 'email' | 'chat' },
): Promise<OutboxClaim> {
  return withTenant(db, ref.organizationId, async (tx) => {
    const claimed = await tx.execute(sql`
      insert into message_outbox (id, organization_id, step_key, channel, status)
      values (gen_random_uuid(), ${ref.organizationId}, ${ref.stepKey}, ${ref.channel}, 'sending')
      on conflict (organization_id, step_key) do update
        set status = 'sending', error = null, updated_at = now()
        where message_outbox.status = 'failed'
      returning id`);
    if (claimed.length > 0) return { state: 'claimed' };
    const [row] = await tx.execute<{ status: string; result: unknown }>(sql`
      select status, result from message_outbox
      where organization_id = ${ref.organizationId} and step_key = ${ref.stepKey}`);
    return row?.status === 'sent' ? { state: 'sent', result: row.result } : { state: 'unknown' };
  });
}

/** After the provider took the message: its answer, which a retried step returns instead of sending. */
export async function completeOutboxMessage(db: Database, ref: OutboxRef, result: unknown): Promise<void> {
  await withTenant(db, ref.organizationId, (tx) =>
    tx.execute(sql`
      update message_outbox set status = 'sent', result = ${JSON.stringify(result)}::jsonb, updated_at = now()
      where organization_id = ${ref.organizationId} and step_key = ${ref.stepKey}`),
  );
}

/** The provider refused before taking the message: a later attempt may send. */
export async function releaseOutboxMessage(db: Database, ref: OutboxRef, error: string): Promise<void> {
  await withTenant(db, ref.organizationId, (tx) =>
    tx.execute(sql`
      update message_outbox set status = 'failed', error = ${error.slice(0, 1000)}, updated_at = now()
      where organization_id = ${ref.organizationId} and step_key = ${ref.stepKey} and status = 'sending'`),
  );
}

/** Delivery states in the order a message goes through them; `failed` ends any of them. */
const DELIVERY_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };

/**
 * A provider's status callback for a message a step sent (found by the provider's message id):
 * keeps the furthest state, since callbacks arrive out of order (`read` before `delivered`).
 * Unknown ids and states are ignored. The 24-hour window is never touched by a status.
 */
export async function recordDeliveryStatus(
  db: Database,
  ref: { organizationId: string; providerMessageId: string; status: string; error?: string | null },
): Promise<boolean> {
  const rank = DELIVERY_RANK[ref.status];
  if (rank === undefined) return false;
  const updated = await withTenant(db, ref.organizationId, (tx) =>
    tx.execute(sql`
      update message_outbox set delivery_status = ${ref.status}, delivery_error = ${ref.error ?? null}, updated_at = now()
      where organization_id = ${ref.organizationId} and result->>'message_id' = ${ref.providerMessageId}
        and coalesce(case delivery_status when 'sent' then 1 when 'delivered' then 2 when 'read' then 3
                                          when 'failed' then 4 end, 0) < ${rank}
      returning id`),
  );
  return updated.length > 0;
}
