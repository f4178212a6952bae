import { createHash } from 'node:crypto';
import { type Database, schema, withTenant } from '@weft/db';
import { and, desc, eq, sql } from 'drizzle-orm';

/** How long an agent conversation's turns are kept (the sweeper prunes older ones). */
export const AGENT_MEMORY_RETENTION_DAYS = 90;

/** Only a hash of the memory key (a phone number, say) is stored. */
const keyHashOf = (key: string) => createHash('sha256').update(key).digest('hex');

export interface AgentMemoryRef {
  organizationId: string;
  /** The node's rendered `memory.key`. */
  key: string;
}

/** The last `window` turns under the key, oldest first; each turn is the list of its messages. */
export async function loadAgentMemory(
  db: Database,
  ref: AgentMemoryRef & { window: number },
): Promise<unknown[][]> {
  const m = schema.agentMemory;
  const rows = await withTenant(db, ref.organizationId, (tx) =>
    tx
      .select({ messages: m.messages })
      .from(m)
      .where(and(eq(m.organizationId, ref.organizationId), eq(m.keyHash, keyHashOf(ref.key))))
      .orderBy(desc(m.seq))
      .limit(ref.window),
  );
  return rows.reverse().map((row) => row.messages as unknown[]);
}

/**
 * Appends a turn under the key. Writers of one key are serialized by a transaction-scoped advisory
 * lock (the next `seq` is read and taken in one go); a retried write of the same step adds nothing.
 */
export async function appendAgentMemory(
  db: Database,
  ref: AgentMemoryRef & { stepKey: string; messages: unknown[] },
): Promise<void> {
  const m = schema.agentMemory;
  const keyHash = keyHashOf(ref.key);
  await withTenant(db, ref.organizationId, async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`agent_memory:${ref.organizationId}:${keyHash}`}, 0))`,
    );
    const [last] = await tx
      .select({ seq: sql<number>`coalesce(max(${m.seq}), 0)::bigint` })
      .from(m)
      .where(and(eq(m.organizationId, ref.organizationId), eq(m.keyHash, keyHash)));
    await tx
      .insert(m)
      .values({
        organizationId: ref.organizationId,
        keyHash,
        seq: Number(last?.seq ?? 0) + 1,
        messages: ref.messages,
        stepKey: ref.stepKey,
      })
      .onConflictDoNothing({ target: [m.organizationId, m.stepKey] });
  });
}
