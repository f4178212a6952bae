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
