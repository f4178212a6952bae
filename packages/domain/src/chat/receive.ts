import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Database, withTenant } from '@weft/db';
import { maskPhoneText, type PhoneIdentity, phoneIdentity } from '@weft/nodes';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { decideByChatReply } from '../approvals/chat-reply';
import { openCredentialSecrets } from '../credentials/store';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import { publishEvent } from '../events/publish';
import type { ExecutionEngine } from '../executions/execution-engine';
import { recordDeliveryStatus } from '../outbox/message-outbox';
import { CHAT_WINDOW_MS } from './window';

/** The part of the cloud provider's webhook body we read; everything else is ignored. */
const CloudWebhook = z.object({
  object: z.string().optional(),
  entry: z
    .array(
      z.object({
        changes: z
          .array(
            z.object({
              value: z
                .object({
                  metadata: z.object({ phone_number_id: z.string() }).optional(),
                  contacts: z
                    .array(
                      z.object({
                        wa_id: z.string().optional(),
                        profile: z.object({ name: z.string() }).partial().optional(),
                      }),
                    )
                    .optional(),
                  statuses: z
                    .array(
                      z.object({
                        id: z.string().max(256),
                        status: z.string().max(20),
                        errors: z
                          .array(z.object({ code: z.number().optional(), title: z.string().optional() }))
                          .optional(),
                      }),
                    )
                    .optional(),
                  messages: z
                    .array(
                      z.object({
                        from: z.string(),
                        id: z.string().max(256),
                        timestamp: z.string().optional(),
                        type: z.string(),
                        text: z.object({ body: z.string() }).optional(),
                      }),
                    )
                    .optional(),
                })
                .passthrough(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

/** `sha256=<hex HMAC-SHA256(raw body, app_secret)>`, compared in constant time. */
export function validCloudSignature(
  appSecret: string,
  body: Uint8Array,
  header: string | null | undefined,
): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', appSecret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An inbound message that could not be read (DESIGN §9: never dropped in silence). The provider is
 * still answered 200 (its retry would bring the same message), and the route logs and counts it.
 */
export interface UnreadableChatMessage {
  /** `sender`: the number is not E.164 shape; `incomplete`: no message id or body. */
  reason: 'sender' | 'incomplete';
  /** The sender as sent, masked (`+15•••••0123`), for the log line. */
  from: string;
}

/** What one provider call brought: messages received, provider retries, and unreadable ones. */
export interface ChatReceipt {
  organizationId: string;
  received: number;
  duplicates: number;
  unreadable: UnreadableChatMessage[];
}

/**
 * POST /api/webhooks/chat (cloud provider): routed by `metadata.phone_number_id` to the organization
 * whose chat module sends from that number, verified with that module's app_secret over the raw
 * bytes (401 and nothing stored otherwise). Each message opens the 24-hour window with its sender and
 * raises `chat.message_received` for the organization's chat workflows and listeners; a provider's
 * retry of a message already received starts nothing. Status callbacks never move the window.
 */
export async function receiveCloudChat(deps: {
  db: Database;
  secrets: SecretBox;
  engine: ExecutionEngine;
  body: Uint8Array;
  signature: string | null | undefined;
}): Promise<ChatReceipt> {
  let parsed: z.infer<typeof CloudWebhook>;
  try {
    parsed = CloudWebhook.parse(JSON.parse(strictUtf8.decode(deps.body)));
  } catch {
    throw new AppError(
      'validation_error',
      'The body is not a chat provider webhook (JSON with entry[].changes[]).',
    );
  }
  const values = parsed.entry.flatMap((entry) => entry.changes.map((change) => change.value));
  const numberIds = new Set(values.flatMap((v) => (v.metadata ? [v.metadata.phone_number_id] : [])));
  if (numberIds.size !== 1) throw new AppError('not_found', 'No chat module sends from this number.');
  const [phoneNumberId] = numberIds;
  const [module] = await deps.db.execute<{ organization_id: string; secret_ciphertext: string }>(
    sql`select * from weft_find_chat_module(${phoneNumberId as string})`,
  );
  if (!module) throw new AppError('not_found', 'No chat module sends from this number.');
  const { app_secret: appSecret } = openCredentialSecrets(module.secret_ciphertext, deps.secrets);
  if (!appSecret || !validCloudSignature(appSecret, deps.body, deps.signature)) {
    throw new AppError('unauthenticated', 'The X-Hub-Signature-256 signature is missing or invalid.');
  }
  const organizationId = module.organization_id;
  let received = 0;
  let duplicates = 0;
  const unreadable: UnreadableChatMessage[] = [];
  for (const value of values) {
    for (const status of value.statuses ?? []) {
      const error = status.errors?.[0];
      await recordDeliveryStatus(deps.db, {
        organizationId,
        providerMessageId: status.id,
        status: status.status,
        error: error ? `${error.code ?? ''} ${error.title ?? ''}`.trim() : null,
      });
    }
    const names = new Map((value.contacts ?? []).map((c) => [c.wa_id ?? '', c.profile?.name ?? null]));
    for (const message of value.messages ?? []) {
      const sender = phoneIdentity(message.from);
      if (!sender) {
        unreadable.push({ reason: 'sender', from: maskPhoneText(message.from) });
        continue;
      }
      const stamped = Number(message.timestamp) * 1000;
      const at = Number.isFinite(stamped) && stamped > 0 ? new Date(stamped) : new Date();
      const outcome = await recordInboundMessage(deps, organizationId, {
        sender,
        id: message.id,
        type: message.type,
        text: message.text?.body ?? null,
        profileName: names.get(message.from) ?? null,
        at,
      });
      if (outcome === 'duplicate') duplicates++;
      else received++;
    }
  }
  return { organizationId, received, duplicates, unreadable };
}

export interface InboundMessage {
  sender: PhoneIdentity;
  /** The provider's message id: a redelivery of it starts nothing. */
  id: string;
  type: string;
  text: string | null;
  profileName: string | null;
  at: Date;
}

/**
 * One inbound message of either provider: opens the window with its sender and raises
 * `chat.message_received` (sender masked, never in clear) for the chat workflows and listeners.
 */
export async function recordInboundMessage(
  deps: { db: Database; engine: ExecutionEngine },
  organizationId: string,
  message: InboundMessage,
): Promise<'received' | 'duplicate'> {
  const conversation = await openWindow(deps.db, organizationId, message.sender.hash, message.id, message.at);
  if (!conversation) return 'duplicate';
  // A reply to an approval's notification (`APPROVE <code>`) is the decision, not a chat turn.
  if (await decideByChatReply(deps, organizationId, message.sender, message.text)) return 'received';
  await publishEvent({
    ctx: { db: deps.db, organizationId, actor: {} },
    input: {
      event: 'chat.message_received',
      payload: {
        message_id: message.id,
        type: message.type,
        text: message.text,
        from: message.sender.masked,
        phone_hash: message.sender.hash,
        profile_name: message.profileName,
        conversation_id: conversation.conversationId,
        window_expires_at: conversation.windowExpiresAt,
        received_at: message.at.toISOString(),
      },
    },
    engine: deps.engine,
    trigger: 'event',
    alsoRun: {
      chatWorkflows: true,
      // The number itself, so the run can reply (`to: {{trigger.sender}}`): for this run only.
      runOnlyPayload: { sender: message.sender.e164 },
    },
  });
  return 'received';
}

/**
 * Records an inbound message: the window runs 24 hours from it. Null when this provider message id
 * was received before (the provider retried a delivery).
 */
async function openWindow(
  db: Database,
  organizationId: string,
  phoneHash: string,
  messageId: string,
  at: Date,
) {
  const expires = new Date(at.getTime() + CHAT_WINDOW_MS);
  const rows = await withTenant(db, organizationId, async (tx) => {
    // Every message id once: a redelivery (of the latest message or an older one) changes nothing.
    const fresh = await tx.execute(sql`
      insert into chat_inbound_messages (organization_id, provider_message_id)
      values (${organizationId}, ${messageId})
      on conflict do nothing
      returning provider_message_id`);
    if (fresh.length === 0) return [];
    return tx.execute<{ conversation_id: string; window_expires_at: string }>(sql`
      insert into chat_conversations (organization_id, phone_hash, last_inbound_at, window_expires_at, last_provider_message_id)
      values (${organizationId}, ${phoneHash}, ${at.toISOString()}, ${expires.toISOString()}, ${messageId})
      on conflict (organization_id, phone_hash) do update
        set last_inbound_at = greatest(chat_conversations.last_inbound_at, excluded.last_inbound_at),
            window_expires_at = greatest(chat_conversations.window_expires_at, excluded.window_expires_at),
            last_provider_message_id = excluded.last_provider_message_id,
            updated_at = now()
      returning conversation_id, window_expires_at`);
  });
  const [row] = rows;
  return row
    ? { conversationId: row.conversation_id, windowExpiresAt: new Date(row.window_expires_at).toISOString() }
    : null;
}
