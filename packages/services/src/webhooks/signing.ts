import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, one scheme for both directions: outbound deliveries are signed with it and
 * inbound hooks with `trigger_config.secret` are verified with it (DESIGN.md §8).
 *
 * - `X-Webhook-Signature`: hex HMAC-SHA256 of the exact raw body, keyed with the secret.
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`): the HMAC
 *   covers `<id>.<timestamp>.<body>`, so a receiver can refuse replays by checking the timestamp.
 */
export interface SignedHeaders {
  'x-webhook-signature': string;
  'x-webhook-id': string;
  'x-webhook-timestamp': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function hexSignature(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function standardWebhookSignature(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  const mac = createHmac('sha256', secret).update(`${messageId}.${timestampSeconds}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

export function signWebhook(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): SignedHeaders {
  return {
    'x-webhook-signature': hexSignature(secret, body),
    'x-webhook-id': messageId,
    'x-webhook-timestamp': String(timestampSeconds),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardWebhookSignature(secret, messageId, timestampSeconds, body),
  };
}

function equalStrings(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Replays older (or newer) than this are refused when a Standard Webhooks timestamp is present. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

/**
 * Verifies an inbound request signed by either header form. Constant-time comparisons; a
 * Standard Webhooks signature must also carry a timestamp within the tolerance.
 */
export function verifyWebhookSignature(
  secret: string,
  body: Uint8Array,
  headers: { get(name: string): string | null | undefined },
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const hex = headers.get('x-webhook-signature');
  if (hex) {
    const given = hex.startsWith('sha256=') ? hex.slice('sha256='.length) : hex;
    return equalStrings(given.toLowerCase(), hexSignature(secret, body));
  }
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signatures = headers.get('webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = standardWebhookSignature(secret, id, Number(timestamp), body);
  // The header may list several space-separated signatures (secret rotation).
  return signatures.split(' ').some((candidate) => equalStrings(candidate, expected));
}
