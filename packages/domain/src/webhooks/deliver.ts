import { type Database, schema, withTenant } from '@weft/db';
import { parseRetryAfter } from '@weft/nodes';
import { and, eq, notInArray, sql } from 'drizzle-orm';
import type { SecretBox } from '../encryption/secret-box';
import type { OutboundHttpClient } from '../outbound-http/client';
import { OutboundHttpError } from '../outbound-http/errors';
import { signWebhook } from './signing';

/** The delivery workflow's retry policy; the attempt uses it to tell when the next one will be. */
export interface DeliveryRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
}

/** The receiver's whole answer must arrive within this; the rest of the 10 s attempt records it. */
export const DELIVERY_REQUEST_TIMEOUT_MS = 8000;
/** We only read the status; a larger answer is cut off (and counts as a failed attempt). */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Longest Retry-After we honour; a longer one waits this long (the 24 h deadline still applies). */
const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;

export type DeliveryOutcome =
  | { kind: 'delivered'; statusCode: number }
  /** Try again after `delayMs`: the Retry-After, else the retry policy's backoff (always set when returned). */
  | { kind: 'retry'; code: string; message: string; delayMs?: number }
  | { kind: 'failed'; code: string; message: string }
  /** Nothing to do: the webhook was deleted, or this delivery was already settled. */
  | { kind: 'skipped'; reason: 'gone' | 'settled' };

/** Retry-After (see @weft/nodes), capped for deliveries: the 24 h deadline still applies. */
export const parseDeliveryRetryAfter = (value: string | undefined, nowMs: number) =>
  parseRetryAfter(value, nowMs, MAX_RETRY_AFTER_MS);

/** Delay before attempt `attempt + 1` under the policy (Temporal's exponential backoff). */
export function backoffDelayMs(policy: DeliveryRetryPolicy, attempt: number): number {
  return Math.min(
    policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1),
    policy.maximumIntervalMs,
  );
}

/**
 * What one HTTP answer means. 2xx delivered. 5xx, 429 and 408 may pass, so they are retried (429
 * and 503 after their Retry-After). Redirects are never followed (a receiver that moved must be
 * re-registered: following would send signed data somewhere nobody configured) and other 4xx are
 * final: the receiver understood and refused, so repeating the same bytes cannot help.
 */
function classify(status: number, headers: Record<string, string>, nowMs: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', statusCode: status };
  if (status >= 300 && status < 400) {
    return {
      kind: 'failed',
      code: 'redirect_not_followed',
      message: `HTTP ${status}: redirects are not followed`,
    };
  }
  if (status >= 500 || status === 429 || status === 408) {
    const delayMs =
      status === 429 || status === 503 ? parseDeliveryRetryAfter(headers['retry-after'], nowMs) : undefined;
    return {
      kind: 'retry',
      code: 'http_status',
      message: `HTTP ${status}`,
      ...(delayMs === undefined ? {} : { delayMs }),
    };
  }
  return { kind: 'failed', code: 'http_status', message: `HTTP ${status}` };
}

function classifyError(error: unknown): DeliveryOutcome {
  if (error instanceof OutboundHttpError) {
    // Timeouts and network errors are transient; a refused (SSRF) or malformed target stays refused.
    const transient = error.code === 'timeout' || error.code === 'network_error';
    return { kind: transient ? 'retry' : 'failed', code: error.code, message: error.message };
  }
  throw error;
}

/** Signs and POSTs the stored body once; never throws for an answer or a refused/failed request. */
async function send(
  deps: { http: OutboundHttpClient; secrets: SecretBox },
  delivery: { event: string; body: string; url: string; secretCiphertext: string },
  deliveryId: string,
  startedAt: number,
): Promise<{ outcome: DeliveryOutcome; statusCode: number | null }> {
  let secret: string;
  try {
    secret = deps.secrets.decrypt(delivery.secretCiphertext);
  } catch {
    const message = 'The signing secret cannot be decrypted (was APP_KEY changed?)';
    return { outcome: { kind: 'failed', code: 'secret_unreadable', message }, statusCode: null };
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Weft-Webhooks/1',
    'x-webhook-event': delivery.event,
    ...signWebhook(secret, deliveryId, Math.floor(startedAt / 1000), delivery.body),
  };
  try {
    const response = await deps.http.request({
      method: 'POST',
      url: delivery.url,
      headers,
      body: delivery.body,
      timeoutMs: DELIVERY_REQUEST_TIMEOUT_MS,
      maxRedirects: 0,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    return { outcome: classify(response.status, response.headers, Date.now()), statusCode: response.status };
  } catch (error) {
    return { outcome: classifyError(error), statusCode: null };
  }
}

/**
 * One attempt of one delivery: load it, sign the stored body with the webhook's secret, POST it
 * (no redirects, SSRF-guarded), and record the attempt on the row. The delivery id is the same on
 * every attempt (`X-Webhook-Id`, `webhook-id`), so receivers can drop duplicates; the timestamp is
 * fresh, so the Standard Webhooks replay window holds for late retries.
 *
 * `attempt` is Temporal's attempt number; an attempt already recorded is not recorded twice.
 * `deadlineMs` is when the retries run out (24 h after the first attempt): a retry that would
 * start after it is recorded as final instead.
 */
export async function attemptWebhookDelivery(
  deps: { db: Database; http: OutboundHttpClient; secrets: SecretBox },
  input: {
    organizationId: string;
    deliveryId: string;
    attempt: number;
    retry: DeliveryRetryPolicy;
    deadlineMs?: number;
  },
): Promise<DeliveryOutcome> {
  const d = schema.webhookDeliveries;
  const w = schema.webhooks;
  const [found] = await withTenant(deps.db, input.organizationId, (tx) =>
    tx
      .select({
        status: d.status,
        event: d.event,
        body: d.body,
        url: w.url,
        secretCiphertext: w.secretCiphertext,
      })
      .from(d)
      .innerJoin(w, eq(w.id, d.webhookId))
      .where(eq(d.id, input.deliveryId)),
  );
  if (!found) return { kind: 'skipped', reason: 'gone' };
  if (found.status === 'succeeded' || found.status === 'failed')
    return { kind: 'skipped', reason: 'settled' };

  const startedAt = Date.now();
  const { outcome: result, statusCode } = await send(deps, found, input.deliveryId, startedAt);
  const finishedAt = Date.now();
  let nextRetryAt: Date | null = null;
  let final = result;
  if (result.kind === 'retry') {
    const delayMs = result.delayMs ?? backoffDelayMs(input.retry, input.attempt);
    const next = finishedAt + delayMs;
    if (input.deadlineMs !== undefined && next >= input.deadlineMs) {
      final = { kind: 'failed', code: result.code, message: `${result.message}; retries exhausted` };
    } else {
      // The caller retries after exactly this delay, so next_retry_at is what will happen.
      final = { ...result, delayMs };
      nextRetryAt = new Date(next);
    }
  }
  const status = final.kind === 'delivered' ? 'succeeded' : final.kind === 'retry' ? 'retrying' : 'failed';
  const record = {
    attempt: input.attempt,
    started_at: new Date(startedAt).toISOString(),
    duration_ms: finishedAt - startedAt,
    status_code: statusCode,
    error: final.kind === 'delivered' ? null : 'message' in final ? final.message : null,
  };
  await withTenant(deps.db, input.organizationId, (tx) =>
    tx
      .update(d)
      .set({
        status,
        attempts: sql`${d.attempts} || ${JSON.stringify([record])}::jsonb`,
        attemptCount: sql`${d.attemptCount} + 1`,
        lastStatusCode: statusCode,
        nextRetryAt,
        deliveredAt: final.kind === 'delivered' ? new Date(finishedAt) : null,
      })
      .where(
        and(
          eq(d.id, input.deliveryId),
          notInArray(d.status, ['succeeded', 'failed']),
          // Recording is at-least-once (the activity may time out after it): count each attempt once.
          sql`not (${d.attempts} @> ${JSON.stringify([{ attempt: input.attempt }])}::jsonb)`,
        ),
      ),
  );
  return final;
}

/** Marks a delivery failed when its retries ran out without the attempt itself noticing (timeouts). */
export async function settleExhaustedDelivery(
  db: Database,
  input: { organizationId: string; deliveryId: string },
): Promise<void> {
  const d = schema.webhookDeliveries;
  await withTenant(db, input.organizationId, (tx) =>
    tx
      .update(d)
      .set({ status: 'failed', nextRetryAt: null })
      .where(and(eq(d.id, input.deliveryId), notInArray(d.status, ['succeeded', 'failed']))),
  );
}
