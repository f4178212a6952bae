import type { Database } from '@weft/db';
import { maskPhoneText, phoneIdentity } from '@weft/nodes';
import { sql } from 'drizzle-orm';
import { openCredentialSecrets } from '../credentials/store';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { recordDeliveryStatus } from '../outbox/message-outbox';
import { validGatewaySignature } from './gateway-signature';
import { type ChatReceipt, recordInboundMessage } from './receive';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * POST /api/webhooks/chat/gateway (the gateway provider, form-encoded): routed by `AccountSid` and
 * `To` to the organization whose chat module sends from that number, verified by X-Twilio-Signature
 * over `url` (built from APP_URL, never from request headers) and every parameter (401, nothing
 * stored otherwise). A message opens the window and raises `chat.message_received`; a status
 * callback (`MessageStatus`, no `Body`) is accepted and never moves the window.
 */
export async function receiveGatewayChat(deps: {
  db: Database;
  secrets: SecretBox;
  engine: ExecutionEngine;
  url: string;
  body: Uint8Array;
  signature: string | null | undefined;
}): Promise<ChatReceipt> {
  let params: [string, string][];
  try {
    params = [...new URLSearchParams(strictUtf8.decode(deps.body)).entries()];
  } catch {
    throw new AppError('validation_error', 'The body is not form-encoded UTF-8.');
  }
  const field = (name: string) => params.find(([key]) => key === name)?.[1];
  const accountSid = field('AccountSid');
  const to = field('To');
  if (!accountSid || !to) throw new AppError('not_found', 'No chat module sends from this number.');
  const [module] = await deps.db.execute<{ organization_id: string; secret_ciphertext: string }>(
    sql`select * from weft_find_gateway_chat_module(${accountSid}, ${to})`,
  );
  if (!module) throw new AppError('not_found', 'No chat module sends from this number.');
  const { auth_token: authToken } = openCredentialSecrets(module.secret_ciphertext, deps.secrets);
  if (!authToken || !validGatewaySignature(authToken, deps.url, params, deps.signature)) {
    throw new AppError('unauthenticated', 'The X-Twilio-Signature signature is missing or invalid.');
  }
  const organizationId = module.organization_id;
  const body = field('Body');
  const messageSid = field('MessageSid');
  const messageStatus = field('MessageStatus');
  if (messageStatus !== undefined && body === undefined && messageSid) {
    // The gateway's states: queued, sent, delivered, read, failed, undelivered.
    const status = messageStatus === 'undelivered' ? 'failed' : messageStatus;
    const errorCode = field('ErrorCode');
    await recordDeliveryStatus(deps.db, {
      organizationId,
      providerMessageId: messageSid,
      status,
      error: errorCode ? `${errorCode}` : null,
    });
    return { organizationId, received: 0, duplicates: 0, unreadable: [] };
  }
  const from = field('From') ?? '';
  const sender = phoneIdentity(from);
  if (body === undefined || !messageSid || !sender) {
    const unreadable = sender
      ? { reason: 'incomplete' as const, from: sender.masked }
      : { reason: 'sender' as const, from: maskPhoneText(from) };
    return { organizationId, received: 0, duplicates: 0, unreadable: [unreadable] };
  }
  const outcome = await recordInboundMessage(deps, organizationId, {
    sender,
    id: messageSid,
    type: field('MessageType') ?? 'text',
    text: body,
    profileName: field('ProfileName') ?? null,
    at: new Date(),
  });
  const received = outcome === 'received' ? 1 : 0;
  return { organizationId, received, duplicates: 1 - received, unreadable: [] };
}
