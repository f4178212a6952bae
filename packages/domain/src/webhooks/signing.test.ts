import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateWebhookSecret } from './create';
import { signWebhook, standardWebhooksKey, verifyWebhookSignature } from './signing';

const headersOf = (record: Record<string, string>) => ({ get: (name: string) => record[name.toLowerCase()] });
const body = '{"event":"execution.completed","data":{"n":1}}';
const bytes = new TextEncoder().encode(body);
const now = 1_800_000_000;
/**
 * A secret of the shape Weft generated before it followed the spec: `whsec_` + base64url of 32 bytes.
 * These bytes need no `-` or `_`, so even the library's lenient decoder would take it as base64: the
 * rule must not depend on the alphabet, only on the (unpadded, 43-character) shape.
 */
const legacyGenerated = `whsec_${Buffer.alloc(32, 7).toString('base64url')}`;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * Secrets users set that also happen to be valid base64 (issue 20): the hex and plain alphanumeric
 * ones, and two with the `whsec_` prefix, one of hex and one of real base64.
 */
const base64LookingSecrets = [
  '3f9a0c5e7b2d4f6a8c1e3b5d7f9a0c2e',
  'MySecretKey2024abcdEFGH',
  `whsec_${'3f9a0c5e7b2d4f6a'.repeat(4)}`,
  `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
];

/** A receiver that follows the spec: hex HMAC-SHA256 of the raw body, keyed with the secret string. */
const specHex = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');

/** A Standard Webhooks receiver as docs/guide.md tells it to read the secret (its snippet is tested below). */
const standardReceiver = (secret: string) =>
  /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret)
    ? new Webhook(secret)
    : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });

const at = (seconds: number) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(seconds * 1000);
};

describe('secrets and keys', () => {
  it('generates whsec_ + standard base64 of 32 random bytes, which the official library accepts', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(() => new Webhook(secret)).not.toThrow();
    expect(standardWebhooksKey(secret)).toEqual(Buffer.from(secret.slice('whsec_'.length), 'base64'));
  });

  it('any other secret is the UTF-8 bytes of the whole string: chosen ones and pre-spec whsec_ ones', () => {
    for (const secret of ['my-own-secret-123', 'whsec_abc', legacyGenerated, 'whsec_', 'whsec_YWJj=']) {
      expect(standardWebhooksKey(secret), secret).toEqual(Buffer.from(secret, 'utf8'));
    }
    // Pre-spec secrets are 43 characters after the prefix: never padded base64, whatever the bytes.
    expect(legacyGenerated.length - 'whsec_'.length).toBe(43);
    expect(standardWebhooksKey('whsec_YWJj')).toEqual(Buffer.from('abc'));
    expect(standardWebhooksKey('whsec_YWJj/+==')).toEqual(Buffer.from('YWJj/+==', 'base64'));
  });
});

describe('outbound signatures', () => {
  it('verify with the official library, given the secret as Weft answered it', () => {
    const secret = generateWebhookSecret();
    const seconds = Math.floor(Date.now() / 1000);
    const headers = signWebhook(secret, 'msg_1', seconds, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('X-Webhook-Signature is the hex HMAC of the exact body keyed with the secret string, never decoded', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook(secret, 'msg_1', now, body);
    expect(headers['x-webhook-signature']).toBe(specHex(secret, body));
    // The Standard Webhooks header keeps the Standard Webhooks key: the decoded bytes.
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(`msg_1.${now}.${body}`).digest('base64')}`,
    );
  });

  it('secrets that happen to be valid base64 sign X-Webhook-Signature with the string as set', () => {
    const seconds = Math.floor(Date.now() / 1000);
    for (const secret of base64LookingSecrets) {
      const headers = signWebhook(secret, 'msg_3', seconds, body);
      expect(headers['x-webhook-signature'], secret).toBe(specHex(secret, body));
      // Not the HMAC keyed with the decoded bytes (what a shape-guessing signer produced).
      const decoded = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      expect(headers['x-webhook-signature'], secret).not.toBe(
        createHmac('sha256', decoded).update(body).digest('hex'),
      );
      expect(standardReceiver(secret).verify(body, headers), secret).toEqual(JSON.parse(body));
    }
  });

  it('a secret the user chose round-trips through the library in raw mode; pre-spec secrets sign as before', () => {
    const seconds = Math.floor(Date.now() / 1000);
    for (const secret of ['my-own-secret-123', legacyGenerated]) {
      const headers = signWebhook(secret, 'msg_2', seconds, body);
      const raw = new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
      expect(raw.verify(body, headers), secret).toEqual(JSON.parse(body));
      // Byte for byte what Weft sent before the change, so existing receivers keep verifying.
      expect(headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(body).digest('hex'));
      expect(verifyWebhookSignature(secret, bytes, headersOf({ ...headers }))).toEqual({
        form: 'standard',
        messageId: 'msg_2',
      });
    }
  });
});

describe('inbound verification', () => {
  it('accepts a request signed by the official library, and says which message it was', () => {
    at(now);
    const secret = `whsec_${randomBytes(24).toString('base64')}`; // a Svix-style 24-byte secret
    const signature = new Webhook(secret).sign('msg_lib', new Date(now * 1000), body);
    const headers = headersOf({
      'webhook-id': 'msg_lib',
      'webhook-timestamp': String(now),
      'webhook-signature': `v1,bm90IGl0 ${signature}`, // several signatures: one must match
    });
    expect(verifyWebhookSignature(secret, bytes, headers)).toEqual({
      form: 'standard',
      messageId: 'msg_lib',
    });
    expect(verifyWebhookSignature(generateWebhookSecret(), bytes, headers)).toBeNull();
    expect(verifyWebhookSignature(secret, new TextEncoder().encode(`${body} `), headers)).toBeNull();
  });

  it('refuses a Standard Webhooks timestamp more than five minutes away, and incomplete headers', () => {
    const secret = generateWebhookSecret();
    const signed = signWebhook(secret, 'id', now, body);
    const standard = headersOf({
      'webhook-id': 'id',
      'webhook-timestamp': signed['webhook-timestamp'],
      'webhook-signature': signed['webhook-signature'],
    });
    at(now + 299);
    expect(verifyWebhookSignature(secret, bytes, standard)).not.toBeNull();
    at(now + 301);
    expect(verifyWebhookSignature(secret, bytes, standard)).toBeNull();
    at(now - 301);
    expect(verifyWebhookSignature(secret, bytes, standard)).toBeNull();
    at(now);
    const float = headersOf({
      'webhook-id': 'id',
      'webhook-timestamp': `${signed['webhook-timestamp']}.0`,
      'webhook-signature': signed['webhook-signature'],
    });
    expect(verifyWebhookSignature(secret, bytes, float)).toBeNull();
    const noId = headersOf({
      'webhook-timestamp': String(now),
      'webhook-signature': signed['webhook-signature'],
    });
    expect(verifyWebhookSignature(secret, bytes, noId)).toBeNull();
  });

  it('X-Webhook-Signature alone: exact bytes, sha256= prefix allowed; the answer names the signature', () => {
    const secret = 'my-own-secret-123';
    const hex = signWebhook(secret, 'id', now, body)['x-webhook-signature'];
    expect(verifyWebhookSignature(secret, bytes, headersOf({ 'x-webhook-signature': hex }))).toEqual({
      form: 'legacy',
      signature: hex,
    });
    const prefixed = headersOf({ 'x-webhook-signature': `sha256=${hex.toUpperCase()}` });
    expect(verifyWebhookSignature(secret, bytes, prefixed)).toEqual({ form: 'legacy', signature: hex });
    expect(
      verifyWebhookSignature('other-secret', bytes, headersOf({ 'x-webhook-signature': hex })),
    ).toBeNull();
    expect(
      verifyWebhookSignature(
        secret,
        new TextEncoder().encode(`${body} `),
        headersOf({ 'x-webhook-signature': hex }),
      ),
    ).toBeNull();
    expect(verifyWebhookSignature(secret, bytes, headersOf({}))).toBeNull();
  });

  it('X-Webhook-Signature from a sender keyed with the string as set verifies, for base64-looking secrets', () => {
    for (const secret of base64LookingSecrets) {
      const hex = specHex(secret, body);
      expect(
        verifyWebhookSignature(secret, bytes, headersOf({ 'x-webhook-signature': hex })),
        secret,
      ).toEqual({ form: 'legacy', signature: hex });
      const decoded = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const guessed = createHmac('sha256', decoded).update(body).digest('hex');
      expect(
        verifyWebhookSignature(secret, bytes, headersOf({ 'x-webhook-signature': guessed })),
        secret,
      ).toBeNull();
    }
  });

  it('with the Standard Webhooks headers present they alone decide: a stale one is not rescued by the hex header', () => {
    const secret = generateWebhookSecret();
    const signed = signWebhook(secret, 'id', now, body);
    at(now + 3600);
    expect(verifyWebhookSignature(secret, bytes, headersOf({ ...signed }))).toBeNull();
  });
});

describe('the verification snippet in docs/guide.md', () => {
  it('accepts what Weft signs and refuses another secret, a changed body, a replay and no headers', async () => {
    const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const guide = await readFile(path.resolve(packageDir, '../../docs/guide.md'), 'utf8');
    const snippet = guide.match(/Verifying a delivery in Node[\s\S]*?```js\n([\s\S]*?)```/)?.[1];
    expect(snippet).toContain('export function isFromWeft');
    // Written under this package's node_modules so that its `import 'standardwebhooks'` resolves.
    const cache = path.join(packageDir, 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    const dir = await mkdtemp(path.join(cache, 'weft-snippet-'));
    try {
      const file = path.join(dir, 'verify.mjs');
      await writeFile(file, snippet ?? '');
      const { isFromWeft } = (await import(file)) as {
        isFromWeft(raw: Buffer, headers: Record<string, string>, secret: string): boolean;
      };
      const seconds = Math.floor(Date.now() / 1000);
      for (const secret of [
        generateWebhookSecret(),
        'my-own-secret-123',
        legacyGenerated,
        ...base64LookingSecrets,
      ]) {
        const signed = signWebhook(secret, 'd1', seconds, body);
        expect(isFromWeft(Buffer.from(body), { ...signed }, secret), secret).toBe(true);
        expect(isFromWeft(Buffer.from(body), { ...signed }, generateWebhookSecret())).toBe(false);
        expect(isFromWeft(Buffer.from(`${body} `), { ...signed }, secret)).toBe(false);
        const replayed = signWebhook(secret, 'd1', seconds - 600, body);
        expect(isFromWeft(Buffer.from(body), { ...replayed }, secret)).toBe(false);
        expect(isFromWeft(Buffer.from(body), {}, secret)).toBe(false);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
