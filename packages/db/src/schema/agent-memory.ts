import {
  bigint,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { organizations } from './organizations';

/**
 * action.ai.agent's conversation memory: one row per turn (the user's message, the model's answers,
 * every tool call and its result), so a window of turns never splits a tool call from its result.
 * Keyed by a SHA-256 of the node's `memory.key` (a chat sender, say): the key itself is never
 * stored. Turns older than the retention are pruned by the worker's sweeper.
 */
export const agentMemory = pgTable(
  'agent_memory',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    /** The turn's messages in the AI module's neutral form (packages/nodes/src/shared/ai/messages.ts). */
    messages: jsonb('messages').notNull(),
    /** The agent step that wrote it: a retried write adds nothing. */
    stepKey: text('step_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.keyHash, t.seq] }),
    uniqueIndex('agent_memory_step_key').on(t.organizationId, t.stepKey),
    index('agent_memory_created_at').on(t.createdAt),
  ],
);
