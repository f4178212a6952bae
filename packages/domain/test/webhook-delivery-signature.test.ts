import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/encryption';
import { createOrganization } from '../src/organizations/create';
import { createOutboundHttpClient } from '../src/outbound-http/client';
import { createWebhook } from '../src/webhooks/create';
import { attemptWebhookDelivery } from '../src/webhooks/deliver';
import { sendTestDelivery } from '../src/webhooks/send-test';

/**
 * Interoperability: what a real delivery attempt puts on the wire verifies with the official
 * `standardwebhooks` library, given the secret exactly as Weft answered it on create.
 */

let t: TestDatabase;
let receiver: Server;
let receiverUrl: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const secrets = createSecretBox(randomBytes(32));
const http = createOutboundHttpClient({ allowlist: ['127.0.0.1/32'] });
const retry = { initialIntervalMs: 100, backoffCoefficient: 2, maximumIntervalMs: 1000 };

beforeAll(async () => {
  t = await createTestDatabase();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  receiver?.close();
  await t?.drop();
});

/** Creates a webhook (with `secret`, or a generated one), sends a test delivery, returns what arrived. */
async function deliverOnce(secret?: string) {
  const organizationId = (await createOrganization(t.app.db, { name: 'Receivers' })).id;
  const ctx = { db: t.app.db, organizationId, actor: {} };
  const webhook = await createWebhook({
    ctx,
    input: { url: receiverUrl, events: ['execution.completed'], ...(secret ? { secret } : {}) },
    deps: { secrets, ssrfAllowlist: ['127.0.0.1/32'] },
  });
  const started: string[] = [];
  const delivery = await sendTestDelivery(
    ctx,
    { startDeliveries: async (_org, ids) => void started.push(...ids) },
    webhook.id,
  );
  expect(started).toEqual([delivery.id]);
  const before = received.length;
  const outcome = await attemptWebhookDelivery(
    { db: t.app.db, http, secrets },
    { organizationId, deliveryId: delivery.id, attempt: 1, retry },
  );
  expect(outcome).toEqual({ kind: 'delivered', statusCode: 204 });
  const arrived = received.slice(before);
  expect(arrived).toHaveLength(1);
  return { secret: webhook.secret, delivery, ...(arrived[0] as (typeof received)[number]) };
}

/** Node's header object as the library takes it: one string per name. */
const asRecord = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

describe('an outbound delivery', () => {
  it('verifies with new Webhook(secret).verify(body, headers) for a generated secret', async () => {
    const { secret, delivery, headers, body } = await deliverOnce();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const payload = new Webhook(secret).verify(body, asRecord(headers)) as { id: string; event: string };
    expect(payload).toMatchObject({ id: delivery.id, event: 'webhook.test' });
    expect(headers['webhook-id']).toBe(delivery.id);
    // Another secret, or a body changed on the way, does not verify.
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, asRecord(headers)),
    ).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, asRecord(headers))).toThrow();
  });

  it('verifies in raw mode for a secret the user chose (its UTF-8 bytes are the key)', async () => {
    const { secret, headers, body } = await deliverOnce('my-own-secret-123');
    expect(secret).toBe('my-own-secret-123');
    const raw = new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
    expect(raw.verify(body, asRecord(headers))).toMatchObject({ event: 'webhook.test' });
  });
});
