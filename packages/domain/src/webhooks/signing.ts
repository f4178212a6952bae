import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * Webhook signatures, one scheme for both directions: outbound deliveries are signed with it and
 * inbound hooks with `trigger_config.secret` are verified with it (DESIGN.md §8).
 *
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`): signed
 *   and verified by the official `standardwebhooks` library, so any receiver using it (or a port of
 *   it) agrees with us byte for byte. The HMAC covers `<id>.<timestamp>.<body>`; the library refuses
 *   a timestamp more than five minutes away, which is what bounds a replay. Keyed with
 *   `standardWebhooksKey(secret)`.
 * - `X-Webhook-Signature`: hex HMAC-SHA256 of the exact raw body keyed with the secret's UTF-8 bytes
 *   exactly as set or generated (the spec's rule: a receiver computes `HMAC(secret, body)` with the
 *   string it was given). Never decoded or guessed from the secret's shape: a user's `whsec_<hex>`
 *   is a valid base64 string too, and decoding it made every delivery fail such a receiver. It
 *   carries no timestamp: see hooks/receipts.ts for how a replayed inbound request is refused.
 */
export interface SignedHeaders {
  'x-webhook-signature': string;
  'x-webhook-id': string;
  'x-webhook-timestamp': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** `whsec_` + standard base64 with its padding; anything else is not a Standard Webhooks secret. */
const STANDARD_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * The HMAC key a secret stands for in the Standard Webhooks headers only (`X-Webhook-Signature` is
 * always keyed with the secret's UTF-8 bytes, see `hexSignature`).
 *
 * - `whsec_` + padded standard base64 (what Weft generates, and what Svix-style senders hand out):
 *   the decoded bytes, as the Standard Webhooks spec says and as its libraries read such a secret.
 * - Anything else: the UTF-8 bytes of the whole secret, prefix included. That covers secrets users
 *   chose (`my-own-secret-123`) and every secret Weft generated before it followed the spec:
 *   `whsec_` + 43 characters of base64url, which is never a padded base64 string (43 is not a
 *   multiple of 4), so those keep the key they always had and their receivers keep working.
 *
 * A receiver using the official library passes the secret as is in the first case and
 * `new Webhook(new TextEncoder().encode(secret), { format: 'raw' })` in the second.
 */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = STANDARD_SECRET.exec(secret)?.[1];
  // `whsec_` alone decodes to nothing: it is an (odd) raw secret, not an empty key.
  return encoded ? Buffer.from(encoded, 'base64') : Buffer.from(secret, 'utf8');
}

/** The library with our key rule applied (raw mode: we hand it the bytes, it never guesses). */
function standardWebhook(secret: string): Webhook {
  return new Webhook(standardWebhooksKey(secret), { format: 'raw' });
}

/** `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body keyed with the secret's UTF-8 bytes, as set. */
export function hexSignature(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
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
    'webhook-signature': standardWebhook(secret).sign(messageId, new Date(timestampSeconds * 1000), body),
  };
}

function equalStrings(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a valid signature proved, and so what identifies a repeat of the request. */
export type VerifiedSignature =
  /** Standard Webhooks: the sender's message id (the same on its retries). */
  | { form: 'standard'; messageId: string }
  /** `X-Webhook-Signature`: the hex HMAC of the body (the same for a replay of the same bytes). */
  | { form: 'legacy'; signature: string };

/**
 * Verifies an inbound request. When the Standard Webhooks headers are present they alone decide
 * (the library checks the signature and the five-minute timestamp window), so a captured request
 * that also carries `X-Webhook-Signature` cannot be replayed through the header without a
 * timestamp. Otherwise `X-Webhook-Signature` (hex, `sha256=` prefix allowed) is compared in
 * constant time. Null when neither form verifies.
 */
export function verifyWebhookSignature(
  secret: string,
  body: Uint8Array,
  headers: { get(name: string): string | null | undefined },
): VerifiedSignature | null {
  const id = headers.get('webhook-id');
  const timestamp = headers.get('webhook-timestamp');
  const signatures = headers.get('webhook-signature');
  if (id || timestamp || signatures) {
    // Integer seconds, as the spec says: the library's parseInt would take `1800000000.0` or
    // `1800000000abc` and check the signature against the number, not the header as sent.
    if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return null;
    try {
      // A Buffer, not a Uint8Array: the library reads only strings and Buffers.
      const payload = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      const triple = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures };
      standardWebhook(secret).verify(payload, triple, { jsonParse: false });
      return { form: 'standard', messageId: id };
    } catch (error) {
      if (error instanceof WebhookVerificationError) return null;
      throw error;
    }
  }
  const hex = headers.get('x-webhook-signature');
  if (!hex) return null;
  const given = (hex.startsWith('sha256=') ? hex.slice('sha256='.length) : hex).toLowerCase();
  const expected = hexSignature(secret, body);
  return equalStrings(given, expected) ? { form: 'legacy', signature: expected } : null;
}
