import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 20: secrets users set that happen to be valid base64 (`whsec_3f9a0c…`) were keyed by their
// decoded bytes, so a receiver following the spec (hex HMAC of the raw body keyed with the secret)
// refused every delivery. Here the receivers and senders are written as their users write them.

/** Secrets as users set them; every one of them is also a valid base64 string. */
const SECRETS: Record<string, string> = {
  '/hex': '3f9a0c5e7b2d4f6a8c1e3b5d7f9a0c2e',
  '/alnum': 'MySecretKey2024abcdEFGH',
  '/whsec-hex': `whsec_${'3f9a0c5e7b2d4f6a'.repeat(4)}`,
  '/whsec-base64': 'whsec_MfHQdVNJxqRPNB2c3cHuW4TxBWxJm0dYbD9WFG1lqHE=',
};

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

let h: EngineHarness;
let server: Server;
let baseUrl: string;
const received: Received[] = [];

/** What the spec tells a receiver to do with `X-Webhook-Signature`. */
function specReceiverAccepts(secret: string, raw: Buffer, headers: IncomingHttpHeaders): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(String(headers['x-webhook-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A Standard Webhooks receiver with the official library, reading the secret as docs/guide.md says:
 * `whsec_` + padded base64 as is (the library decodes it), any other secret as its UTF-8 bytes.
 */
function standardReceiver(secret: string): Webhook {
  return /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret)
    ? new Webhook(secret)
    : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const got = await probe();
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.1/32'] });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('outbound deliveries with secrets that look like base64', () => {
  it('every delivery verifies at a receiver keyed with the secret string, and with Standard Webhooks', async () => {
    const org = await h.createOrg('Secret shapes');
    const secrets: Record<string, string> = { ...SECRETS };
    for (const [path, secret] of Object.entries(SECRETS)) {
      const res = await h.request('POST', '/api/v1/webhooks', {
        key: org.key,
        body: { url: `${baseUrl}${path}`, events: ['workflow.created'], secret },
      });
      expect(res.status, await res.clone().text()).toBe(201);
    }
    // A generated secret follows the same rule: X-Webhook-Signature is keyed with the string shown.
    const generated = await h.request('POST', '/api/v1/webhooks', {
      key: org.key,
      body: { url: `${baseUrl}/generated`, events: ['workflow.created'] },
    });
    secrets['/generated'] = ((await generated.json()) as { secret: string }).secret;

    for (const name of ['First', 'Second']) {
      const res = await h.request('POST', '/api/v1/workflows', {
        key: org.key,
        body: { name, trigger_type: 'manual', nodes: [], edges: [] },
      });
      expect(res.status).toBe(201);
    }
    const paths = Object.keys(secrets);
    const all = await waitFor('two deliveries per webhook', async () => {
      const got = received.filter((r) => paths.includes(r.path));
      return got.length >= paths.length * 2 ? got : undefined;
    });

    expect(new Set(all.map((r) => r.path))).toEqual(new Set(paths));
    for (const request of all) {
      const secret = secrets[request.path] ?? '';
      expect(specReceiverAccepts(secret, request.raw, request.headers), request.path).toBe(true);
      const verified = standardReceiver(secret).verify(request.raw, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
      expect(verified, request.path).toMatchObject({ event: 'workflow.created' });
    }
  });
});

describe('inbound hooks with secrets that look like base64', () => {
  const post = (path: string, body: string, headers: Record<string, string>) =>
    Promise.resolve(
      h.app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }),
    );

  it('accept a sender keyed with the secret string, and a Standard Webhooks sender; refuse a decoded key', async () => {
    const org = await h.createOrg('Inbound shapes');
    for (const [name, secret] of Object.entries(SECRETS)) {
      const res = await h.request('POST', '/api/v1/workflows', {
        key: org.key,
        body: {
          name,
          status: 'active',
          trigger_type: 'webhook',
          trigger_config: { secret },
          nodes: [
            {
              id: 'echo',
              type: 'action.transform',
              config: { assignments: [{ key: 'shape', value: '{{trigger.shape}}' }] },
            },
          ],
        },
      });
      const workflow = (await res.json()) as { webhook_url: string };
      expect(res.status, JSON.stringify(workflow)).toBe(201);
      const path = new URL(workflow.webhook_url).pathname;

      const body = `{"shape": "${name}"}`;
      const hex = createHmac('sha256', secret).update(body).digest('hex');
      expect((await post(path, body, { 'x-webhook-signature': hex })).status, name).toBe(202);

      const decoded = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const guessed = `{"shape": "${name}", "n": 2}`;
      const guessedHex = createHmac('sha256', decoded).update(guessed).digest('hex');
      expect((await post(path, guessed, { 'x-webhook-signature': guessedHex })).status, name).toBe(401);

      const standardBody = `{"shape": "${name}", "n": 3}`;
      const now = new Date();
      const signature = standardReceiver(secret).sign(`msg_${name.slice(1)}`, now, standardBody);
      const standard = await post(path, standardBody, {
        'webhook-id': `msg_${name.slice(1)}`,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      });
      expect(standard.status, name).toBe(202);
    }
  });
});
