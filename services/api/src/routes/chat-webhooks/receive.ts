import {
  acceptsChatHandshake,
  type ChatReceipt,
  type ExecutionEngine,
  receiveCloudChat,
  receiveGatewayChat,
  type SecretBox,
  type ServiceContext,
} from '@weft/domain';
import { type Logger, metrics } from '@weft/telemetry';
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody } from '../../error-handler';

export interface ChatWebhookDeps {
  /** APP_URL: the gateway signs the URL as configured there, which is built from it. */
  siteUrl: string;
  db: ServiceContext['db'];
  engine: ExecutionEngine;
  secrets: SecretBox;
  maxBodyBytes: number;
  /** Where an unreadable inbound message is reported (number masked). */
  logger: Logger;
}

/**
 * An inbound message is never dropped in silence (DESIGN §9): one the service could not read is
 * logged with its number masked and counted, though the provider is answered 200 (a retry would
 * bring the same bytes).
 */
function reportUnreadable(logger: Logger, provider: 'cloud' | 'gateway', receipt: ChatReceipt) {
  for (const message of receipt.unreadable) {
    metrics.chatInboundUnreadable.inc({ provider, reason: message.reason });
    logger.warn(
      { provider, reason: message.reason, from: message.from, org_id: receipt.organizationId },
      'inbound chat message could not be read',
    );
  }
}

/**
 * The chat provider's webhook at `{site_url}/api/webhooks/chat` (spec "Chat module endpoints"),
 * outside /api/v1: no API key; the verify token (GET) and the signature over the raw body (POST)
 * authenticate the provider.
 */
export function registerChatWebhooks(app: Hono, deps: ChatWebhookDeps) {
  app.get('/api/webhooks/chat', async (c) => {
    const accepted = await acceptsChatHandshake(deps, {
      mode: c.req.query('hub.mode'),
      verifyToken: c.req.query('hub.verify_token'),
    });
    if (!accepted) return c.json(errorBody('forbidden', 'The verify token does not match.'), 403);
    // The challenge is echoed as plain text, so a crafted one cannot be rendered as a page.
    return c.text(c.req.query('hub.challenge') ?? '', 200, { 'x-content-type-options': 'nosniff' });
  });

  const limit = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) =>
      c.json(errorBody('payload_too_large', `The request body exceeds ${deps.maxBodyBytes} bytes.`), 413),
  });

  app.post('/api/webhooks/chat/gateway', limit, async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const query = new URL(c.req.url).search;
    const receipt = await receiveGatewayChat({
      ...deps,
      url: `${deps.siteUrl.replace(/\/$/, '')}/api/webhooks/chat/gateway${query}`,
      body,
      signature: c.req.header('x-twilio-signature'),
    });
    reportUnreadable(deps.logger, 'gateway', receipt);
    // The gateway waits for TwiML: an empty response means "no automatic reply".
    return c.body('<?xml version="1.0" encoding="UTF-8"?><Response></Response>', 200, {
      'content-type': 'text/xml',
    });
  });

  app.post('/api/webhooks/chat', limit, async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    const receipt = await receiveCloudChat({
      ...deps,
      body,
      signature: c.req.header('x-hub-signature-256'),
    });
    reportUnreadable(deps.logger, 'cloud', receipt);
    return c.json({ received: receipt.received, duplicates: receipt.duplicates }, 200);
  });
}
