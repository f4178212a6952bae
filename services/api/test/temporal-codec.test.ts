import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApp, createHttpServer } from '@weft/api';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../src/routes/temporal-codec/access';

/** The remote codec the Temporal Web UI calls to show decrypted payloads (DESIGN §10). */
const appKey = randomBytes(32);
const codec = createEncryptionCodec(appKey);
const UI = 'http://localhost:8233';
let db: TestDatabase;
let server: ReturnType<typeof createHttpServer>;
let base: string;
let app: ReturnType<typeof createApp>;

const toJson = (p: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

async function encryptedPayloads(values: unknown[]) {
  const plain = values.map((value) => ({
    metadata: { encoding: Buffer.from('json/plain') },
    data: Buffer.from(JSON.stringify(value)),
  }));
  return { payloads: (await codec.encode(plain)).map(toJson) };
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = createApp({
    db: db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1000,
      RATE_LIMIT_PER_ORG: 1000,
      TRUST_PROXY_HOPS: 0,
      HOST: '127.0.0.1',
      TEMPORAL_UI_URL: UI,
      TEMPORAL_CODEC_TOKEN: 'codec-token-for-operators',
    },
    temporalReady: async () => true,
    appKey,
  });
  server = createHttpServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await db?.drop();
});

describe('Temporal UI codec endpoint', () => {
  it('decodes encrypted payloads for a caller on this machine, from the Temporal UI origin', async () => {
    const body = await encryptedPayloads([{ customer: 'Ada' }, 42]);
    expect(Buffer.from(body.payloads[0]?.data ?? '', 'base64').toString()).not.toContain('Ada');
    const res = await fetch(`${base}/api/temporal-codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: UI, 'x-namespace': 'default' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const decoded = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(decoded.payloads.map((p) => JSON.parse(Buffer.from(p.data, 'base64').toString()))).toEqual([
      { customer: 'Ada' },
      42,
    ]);
    expect(Buffer.from(decoded.payloads[0]?.metadata.encoding ?? '', 'base64').toString()).toBe('json/plain');
  });

  it('encodes what the UI sends, and the codec decodes it back', async () => {
    const res = await fetch(`${base}/api/temporal-codec/encode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        payloads: [
          {
            metadata: { encoding: Buffer.from('json/plain').toString('base64') },
            data: Buffer.from('"hi"').toString('base64'),
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const encoded = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    const back = await codec.decode(
      encoded.payloads.map((p) => ({
        metadata: Object.fromEntries(
          Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
        ),
        data: Buffer.from(p.data, 'base64'),
      })),
    );
    expect(Buffer.from(back[0]?.data ?? []).toString()).toBe('"hi"');
  });

  it('refuses a browser page of another origin', async () => {
    const res = await fetch(`${base}/api/temporal-codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify(await encryptedPayloads([1])),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe('forbidden');
  });

  it('away from this machine, needs the operator token', async () => {
    // app.request has no socket: the caller is not known to be local.
    const body = JSON.stringify(await encryptedPayloads([{ secret: true }]));
    const post = (headers: Record<string, string>) =>
      app.request('/api/temporal-codec/decode', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).error.code).toBe('unauthenticated');
    expect((await post({ authorization: 'Bearer wrong-token' })).status).toBe(401);
    const withToken = await post({ authorization: 'Bearer codec-token-for-operators' });
    expect(withToken.status).toBe(200);
    const decoded = (await withToken.json()) as any;
    expect(JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString())).toEqual({ secret: true });
  });

  it('a body over 8 MiB is 413', async () => {
    const res = await fetch(`${base}/api/temporal-codec/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [{ metadata: {}, data: 'A'.repeat(9 * 1024 * 1024) }] }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('payload_too_large');
  });

  it('bad bodies are 422 in the error envelope; tampered payloads are refused', async () => {
    const post = (body: string) =>
      fetch(`${base}/api/temporal-codec/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    for (const body of ['not json', '{"payloads": 3}', '{"payloads":[{"metadata":{"encoding":7}}]}']) {
      const res = await post(body);
      expect(res.status, body).toBe(422);
      expect(((await res.json()) as any).error.code).toBe('validation_error');
    }
    const good = await encryptedPayloads([{ a: 1 }]);
    const tampered = { payloads: [{ ...good.payloads[0], data: Buffer.from('garbage').toString('base64') }] };
    const res = await post(JSON.stringify(tampered));
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.fields.payloads).toBeDefined();
  });
});

describe('who may call the codec without the token', () => {
  const TOKEN = 'codec-token-for-operators';

  /** A real server for the given HOST and TRUST_PROXY_HOPS; the test always connects from 127.0.0.1. */
  async function codecServer(host: string, trustedProxyHops: number) {
    const codecApp = createApp({
      db: db.app.db,
      env: {
        APP_URL: 'http://localhost:3000',
        MAX_BODY_BYTES: 1024 * 1024,
        RATE_LIMIT_PER_KEY: 1000,
        RATE_LIMIT_PER_ORG: 1000,
        TRUST_PROXY_HOPS: trustedProxyHops,
        HOST: host,
        TEMPORAL_UI_URL: UI,
        TEMPORAL_CODEC_TOKEN: TOKEN,
      },
      temporalReady: async () => true,
      appKey,
    });
    const codecHttp = createHttpServer(codecApp);
    await new Promise<void>((r) => codecHttp.listen(0, host, r));
    const url = `http://127.0.0.1:${(codecHttp.address() as AddressInfo).port}/api/temporal-codec/decode`;
    const decode = async (headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(await encryptedPayloads([{ secret: true }])),
      });
    return { decode, close: () => codecHttp.close() };
  }

  it('bound to loopback with no proxy hops: a local caller decodes without the token', async () => {
    const s = await codecServer('127.0.0.1', 0);
    try {
      expect((await s.decode()).status).toBe(200);
      // ...unless the request came through a proxy on this machine (it says so in its headers).
      const proxied = await s.decode({ 'x-forwarded-for': '203.0.113.9' });
      expect(proxied.status).toBe(401);
      expect(((await proxied.json()) as any).error.code).toBe('unauthenticated');
      expect((await s.decode({ forwarded: 'for=203.0.113.9' })).status).toBe(401);
    } finally {
      s.close();
    }
  });

  it('bound to every interface (0.0.0.0): even a loopback caller needs the token', async () => {
    const s = await codecServer('0.0.0.0', 0);
    try {
      const anonymous = await s.decode();
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as any).error.code).toBe('unauthenticated');
      expect((await s.decode({ authorization: 'Bearer wrong' })).status).toBe(401);
      const withToken = await s.decode({ authorization: `Bearer ${TOKEN}` });
      expect(withToken.status).toBe(200);
      const decoded = (await withToken.json()) as any;
      expect(JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString())).toEqual({
        secret: true,
      });
    } finally {
      s.close();
    }
  });

  it('behind a declared proxy (TRUST_PROXY_HOPS > 0): loopback callers need the token too', async () => {
    const s = await codecServer('127.0.0.1', 1);
    try {
      await expect(s.decode().then((r) => r.status)).resolves.toBe(401);
      await expect(s.decode({ authorization: `Bearer ${TOKEN}` }).then((r) => r.status)).resolves.toBe(200);
    } finally {
      s.close();
    }
  });

  it('loopback listen addresses are told from the others', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '', undefined]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });
});
