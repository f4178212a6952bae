import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns';
import { executions } from './executions';
import { organizations } from './organizations';

/**
 * A decision a person owes a waiting execution (action.approval, the agent's approval gate). The row
 * is the truth: the first decision written wins (a later one is a 409) and only then is it signalled
 * to the workflow, which waits durably with a deadline (DESIGN §14).
 */
export const approvals = pgTable(
  'approvals',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    executionId: uuid('execution_id')
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id').notNull(),
    nodeId: text('node_id').notNull(),
    /** `<step key>[:<tool call id>]`: a retried activity finds the row it created instead of a second one. */
    requestKey: text('request_key').notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    status: text('status', { enum: ['pending', 'approved', 'rejected', 'timed_out'] }).notNull(),
    /** Who decided, as shown: a user's e-mail, an API key's name, a link's or chat reply's recipient, `timeout`. */
    decidedBy: text('decided_by'),
    /** How the decision came: `app` (inbox or API), `email` (signed link), `chat` (reply), `timeout`. */
    decidedVia: text('decided_via', { enum: ['app', 'email', 'chat', 'timeout'] }),
    comment: text('comment'),
    decidedAt: timestamp('decided_at', { withTimezone: true, precision: 3 }),
    /** The deadline (`timeout`); null waits for ever. Links expire with it. */
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
    /**
     * The signed e-mail links' tokens, by SHA-256 (hex) of the token: the recipient each was sent to.
     * Never the tokens themselves; a link decides once (the approval is decided once) and expires.
     */
    linkTokens: jsonb('link_tokens').$type<Record<string, string>>().notNull().default({}),
    /** The code a chat reply names (`APPROVE K7P2QX`), unique among the organization's pending approvals. */
    replyCode: text('reply_code'),
    /** SHA-256 (hex) of the phone number the chat notification went to: only that sender may reply. */
    chatRecipientHash: text('chat_recipient_hash'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('approvals_request_key').on(t.organizationId, t.requestKey),
    index('approvals_org_status_created').on(t.organizationId, t.status, t.createdAt.desc(), t.id.desc()),
    index('approvals_execution').on(t.executionId),
    uniqueIndex('approvals_pending_reply_code')
      .on(t.organizationId, t.replyCode)
      .where(sql`status = 'pending' and reply_code is not null`),
  ],
);
