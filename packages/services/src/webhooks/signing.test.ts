import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './signing';

const headersOf = (record: Record<string, string>) => ({ get: (name: string) => record[name.toLowerCase()] });
const body = '{"event":"execution.completed","data":{"n":1}}';
const now = 1_800_000_000;

describe('webhook signing', () => {
  it('signs the exact bytes: an independent HMAC of the body matches X-Webhook-Signature', () => {
    const headers = signWebhook('s3cret', 'msg_1', now, body);
    expect(headers['x-webhook-signature']).toBe(createHmac('sha256', 's3cret').update(body).digest('hex'));
    expect(headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', 's3cret').update(`msg_1.${now}.${body}`).digest('base64')}`,
    );
  });

  it('verifies its own signatures in both forms and refuses a changed body or another secret', () => {
    const signed = signWebhook('s3cret', 'msg_1', now, body);
    const bytes = new TextEncoder().encode(body);
    const hexOnly = headersOf({ 'x-webhook-signature': signed['x-webhook-signature'] });
    const standardOnly = headersOf({
      'webhook-id': signed['webhook-id'],
      'webhook-timestamp': signed['webhook-timestamp'],
      'webhook-signature': `v1,old ${signed['webhook-signature']}`,
    });
    expect(verifyWebhookSignature('s3cret', bytes, hexOnly, now)).toBe(true);
    expect(verifyWebhookSignature('s3cret', bytes, standardOnly, now)).toBe(true);
    expect(verifyWebhookSignature('other', bytes, hexOnly, now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', new TextEncoder().encode(`${body} `), hexOnly, now)).toBe(false);
    expect(verifyWebhookSignature('s3cret', bytes, headersOf({}), now)).toBe(false);
  });

  it('accepts the sha256= prefix and refuses a Standard Webhooks timestamp outside five minutes', () => {
    const signed = signWebhook('k', 'id', now, body);
    const bytes = new TextEncoder().encode(body);
    const prefixed = headersOf({ 'x-webhook-signature': `sha256=${signed['x-webhook-signature']}` });
    expect(verifyWebhookSignature('k', bytes, prefixed, now)).toBe(true);
    const stale = headersOf({
      'webhook-id': 'id',
      'webhook-timestamp': String(now),
      'webhook-signature': signed['webhook-signature'],
    });
    expect(verifyWebhookSignature('k', bytes, stale, now + 301)).toBe(false);
    expect(verifyWebhookSignature('k', bytes, stale, now + 299)).toBe(true);
  });
});

describe('the verification snippet in README.md', () => {
  it('accepts what Weft signs and refuses another secret, a changed body, a replay and no headers', async () => {
    const readme = await readFile(
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../README.md'),
      'utf8',
    );
    const snippet = readme.match(/Verifying a delivery in Node[\s\S]*?```js\n([\s\S]*?)```/)?.[1];
    expect(snippet).toContain('export function isFromWeft');
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'weft-snippet-')), 'verify.mjs');
    await writeFile(file, snippet ?? '');
    const { isFromWeft } = (await import(file)) as {
      isFromWeft(raw: Buffer, headers: Record<string, string>, secret: string): boolean;
    };
    const seconds = Math.floor(Date.now() / 1000);
    const signed = signWebhook('whsec_abc', 'd1', seconds, body);
    expect(isFromWeft(Buffer.from(body), { ...signed }, 'whsec_abc')).toBe(true);
    expect(isFromWeft(Buffer.from(body), { ...signed }, 'whsec_other')).toBe(false);
    expect(isFromWeft(Buffer.from(`${body} `), { ...signed }, 'whsec_abc')).toBe(false);
    const replayed = signWebhook('whsec_abc', 'd1', seconds - 600, body);
    expect(isFromWeft(Buffer.from(body), { ...replayed }, 'whsec_abc')).toBe(false);
    expect(isFromWeft(Buffer.from(body), {}, 'whsec_abc')).toBe(false);
  });
});
