import dc from 'node:diagnostics_channel';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOutboundHttpClient, type LookupAll, type OutboundRequest } from './client';
import { OutboundHttpError } from './errors';

/** Every TCP connection Node opens, whatever its destination: proves a refusal made none. */
let clientSockets = 0;
const liveServers: TestServer[] = [];
dc.subscribe('net.client.socket', () => {
  clientSockets++;
});
beforeEach(() => {
  clientSockets = 0;
  for (const server of liveServers) server.connections = 0;
});

const HUGE_BYTES = 20 * 1024 * 1024;
const MIB = 1024 * 1024;

function streamHuge(res: ServerResponse) {
  const chunk = Buffer.alloc(64 * 1024, 97);
  let sent = 0;
  const pump = () => {
    while (sent < HUGE_BYTES && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

function route(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const url = new URL(req.url ?? '/', 'http://test');
  res.on('error', () => undefined);
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) {
    const n = Number(chain[1]);
    if (n >= 3) res.end(`end of chain at ${n}`);
    else res.writeHead(302, { location: `/chain/${n + 1}` }).end();
    return;
  }
  switch (url.pathname) {
    case '/echo':
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString() }),
      );
      return;
    case '/created':
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'x-one': '1', 'content-type': 'text/plain' }).end('created');
      return;
    case '/redirect':
      res.writeHead(Number(url.searchParams.get('status') ?? 302), {
        location: url.searchParams.get('to') ?? '/',
      });
      res.end('moved');
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/hang':
      return;
    case '/drip': {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/huge':
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      streamHuge(res);
      return;
    case '/huge-with-length':
      res.writeHead(200, { 'content-length': String(HUGE_BYTES) });
      streamHuge(res);
      return;
    default:
      res.writeHead(404).end();
  }
}

interface TestServer {
  server: Server;
  port: number;
  connections: number;
  url(path: string): string;
}

async function startServer(): Promise<TestServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const result: TestServer = {
    server,
    port,
    connections: 0,
    url: (path) => `http://127.0.0.1:${port}${path}`,
  };
  server.on('connection', () => {
    result.connections++;
  });
  liveServers.push(result);
  return result;
}

async function stopServer({ server }: TestServer) {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function refusal(promise: Promise<unknown>): Promise<OutboundHttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof OutboundHttpError))
    throw new Error(`expected an OutboundHttpError, got ${String(error)}`);
  return error;
}

/** Fake names for tests, all answering 127.0.0.1 (the network is closed); everything else from the system. */
function fakeDns(names: Record<string, string[] | 'hang'>) {
  const calls: string[] = [];
  const lookup: LookupAll = (hostname) => {
    calls.push(hostname);
    const answer = names[hostname];
    if (answer === 'hang') return new Promise(() => undefined);
    if (answer)
      return Promise.resolve(answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    return dnsLookup(hostname, { all: true });
  };
  return { lookup, calls };
}

let main: TestServer;
let other: TestServer;
beforeAll(async () => {
  main = await startServer();
  other = await startServer();
});
afterAll(async () => {
  await stopServer(main);
  await stopServer(other);
});

describe('refusals without a connection (empty allowlist)', () => {
  const dns = fakeDns({ '127.0.0.1.nip.io': ['127.0.0.1'], 'mixed.test': ['127.0.0.1', '10.0.0.1'] });
  const client = createOutboundHttpClient({ allowlist: [], lookup: dns.lookup });
  afterAll(() => client.close());

  // security.md §13 item 34; P is the port of a live loopback server, which must see no connection.
  it.each([
    ['http://127.0.0.1:P/', 'ssrf_blocked'],
    ['http://localhost:P/', 'ssrf_blocked'],
    ['http://localhost.:P/', 'ssrf_blocked'],
    ['http://LOCALHOST:P/', 'ssrf_blocked'],
    ['http://[::1]:P/', 'ssrf_blocked'],
    ['http://[0:0:0:0:0:0:0:1]:P/', 'ssrf_blocked'],
    ['http://0.0.0.0:P/', 'ssrf_blocked'],
    ['http://0:P/', 'ssrf_blocked'],
    ['http://169.254.169.254/latest/meta-data/', 'ssrf_blocked'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'ssrf_blocked'],
    ['http://metadata/', 'ssrf_blocked'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'ssrf_blocked'],
    ['http://100.64.0.1/', 'ssrf_blocked'],
    ['http://10.0.0.1/', 'ssrf_blocked'],
    ['http://172.16.0.1/', 'ssrf_blocked'],
    ['http://192.168.0.1/', 'ssrf_blocked'],
    ['http://[fe80::1]/', 'ssrf_blocked'],
    ['http://224.0.0.1/', 'ssrf_blocked'],
    ['http://2130706433:P/', 'ssrf_blocked'],
    ['http://0177.0.0.1:P/', 'ssrf_blocked'],
    ['http://0x7f.1:P/', 'ssrf_blocked'],
    ['http://127.1:P/', 'ssrf_blocked'],
    ['http://①②⑦.0.0.1:P/', 'ssrf_blocked'],
    ['http://127.0.0.1.:P/', 'ssrf_blocked'],
    ['http://[::ffff:127.0.0.1]:P/', 'ssrf_blocked'],
    ['http://[::ffff:a9fe:a9fe]/', 'ssrf_blocked'],
    ['http://[64:ff9b::7f00:1]/', 'ssrf_blocked'],
    ['http://[2002:7f00:1::]/', 'ssrf_blocked'],
    ['http://127.0.0.1.nip.io:P/', 'ssrf_blocked'],
    ['http://mixed.test/', 'ssrf_blocked'],
    ['http://127.0.0.1:5432/', 'ssrf_blocked'],
    ['http://127.0.0.1:6379/', 'ssrf_blocked'],
    ['http://localhost:7233/', 'ssrf_blocked'],
    ['https://127.0.0.1:P/', 'ssrf_blocked'],
    ['http://evil.com@127.0.0.1:P/', 'invalid_url'],
    ['http://user:pass@localhost:P/', 'invalid_url'],
    ['file:///etc/passwd', 'invalid_url'],
    ['gopher://127.0.0.1:P/_INFO', 'invalid_url'],
    ['data:text/plain,hello', 'invalid_url'],
    ['ftp://127.0.0.1:P/', 'invalid_url'],
    ['http://', 'invalid_url'],
  ])('%s -> %s', async (template, code) => {
    const url = template.replace(':P/', `:${main.port}/`);
    const error = await refusal(client.request({ method: 'GET', url, timeoutMs: 2000 }));
    expect(error.code).toBe(code);
    expect(clientSockets).toBe(0);
    expect(main.connections).toBe(0);
  });

  it('does not name the resolved address in the message', async () => {
    const error = await refusal(
      client.request({ method: 'GET', url: 'http://mixed.test/', timeoutMs: 2000 }),
    );
    expect(error.message).not.toMatch(/10\.0\.0\.1/);
  });

  it('refuses CR/LF in a header value before sending', async () => {
    const error = await refusal(
      client.request({
        method: 'GET',
        url: 'http://example.com/',
        headers: { 'X-A': 'ok\r\nX-Injected: yes' },
        timeoutMs: 2000,
      }),
    );
    expect(error.code).toBe('invalid_url');
    expect(error.message).toMatch(/X-A/);
    expect(dns.calls).not.toContain('example.com');
    expect(clientSockets).toBe(0);
  });
});

describe('with 127.0.0.0/8 allowlisted', () => {
  const dns = fakeDns({ 'pinned.test': ['127.0.0.1'], 'slow-dns.test': 'hang', 'tls.test': ['127.0.0.1'] });
  const client = createOutboundHttpClient({ allowlist: ['127.0.0.0/8'], lookup: dns.lookup });
  afterAll(() => client.close());
  // Generous: a local request can take seconds on a busy machine. Timeout tests set their own.
  const send = (req: Partial<OutboundRequest> & { url: string }) =>
    client.request({ method: 'GET', timeoutMs: 30_000, ...req });

  it('GETs: status, headers, body and final URL', async () => {
    const res = await send({ url: main.url('/created?x=1') });
    expect(res.status).toBe(201);
    expect(res.headers['x-one']).toBe('1');
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    expect(new TextDecoder().decode(res.body)).toBe('created');
    expect(res.body).toBeInstanceOf(Uint8Array);
    expect(res.url).toBe(main.url('/created?x=1'));
  });

  it('POSTs a string body with headers', async () => {
    const res = await send({
      method: 'POST',
      url: main.url('/echo?a=b'),
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'v1', 'Idempotency-Key': 'exec:node' },
      body: '{"hello":"world"}',
    });
    expect(res.status).toBe(200);
    const echo = JSON.parse(new TextDecoder().decode(res.body));
    expect(echo).toMatchObject({
      method: 'POST',
      url: '/echo?a=b',
      body: '{"hello":"world"}',
      headers: {
        'content-type': 'application/json',
        'x-custom': 'v1',
        'idempotency-key': 'exec:node',
        'content-length': '17',
        host: `127.0.0.1:${main.port}`,
      },
    });
  });

  it('PUTs a binary body', async () => {
    const res = await send({
      method: 'PUT',
      url: main.url('/echo'),
      body: new TextEncoder().encode('bytes'),
    });
    expect(JSON.parse(new TextDecoder().decode(res.body))).toMatchObject({ method: 'PUT', body: 'bytes' });
  });

  it('dials the address it checked, once, and keeps the Host header of the name', async () => {
    const before = dns.calls.length;
    const res = await send({ url: `http://pinned.test:${main.port}/echo` });
    expect(JSON.parse(new TextDecoder().decode(res.body)).headers.host).toBe(`pinned.test:${main.port}`);
    expect(dns.calls.slice(before)).toEqual(['pinned.test']);
  });

  it('resolves localhost through the system and reaches it', async () => {
    const res = await send({ url: `http://localhost:${main.port}/echo` });
    expect(res.status).toBe(200);
  });

  it('sends the original host name as the TLS server name', async () => {
    const seen: string[] = [];
    const tls = createTlsServer({
      SNICallback: (servername, callback) => {
        seen.push(servername);
        callback(new Error('no certificate in this test'));
      },
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tls.address() as AddressInfo;
      const error = await refusal(send({ url: `https://tls.test:${port}/` }));
      expect(error.code).toBe('network_error');
      expect(seen).toEqual(['tls.test']);
    } finally {
      await new Promise((resolve) => tls.close(resolve));
    }
  });

  it('refuses a redirect to the metadata address without connecting to it', async () => {
    const url = main.url(`/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`);
    const error = await refusal(send({ url, maxRedirects: 5 }));
    expect(error.code).toBe('ssrf_blocked');
    expect(clientSockets).toBeLessThanOrEqual(1); // the first hop only (or none, with a pooled socket)
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const url = main.url(`/redirect?to=${encodeURIComponent('file:///etc/passwd')}`);
    expect((await refusal(send({ url, maxRedirects: 5 }))).code).toBe('invalid_url');
  });

  it('follows a redirect chain within maxRedirects and reports the final URL', async () => {
    const res = await send({ url: main.url('/chain/0'), maxRedirects: 3 });
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(res.body)).toBe('end of chain at 3');
    expect(res.url).toBe(main.url('/chain/3'));
  });

  it('fails a chain longer than maxRedirects with too_many_redirects', async () => {
    expect((await refusal(send({ url: main.url('/chain/0'), maxRedirects: 2 }))).code).toBe(
      'too_many_redirects',
    );
    expect((await refusal(send({ url: main.url('/loop'), maxRedirects: 5 }))).code).toBe(
      'too_many_redirects',
    );
  });

  it('returns the 302 as is when maxRedirects is 0 (the default)', async () => {
    const res = await send({ url: main.url('/redirect?to=/echo') });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/echo');
    expect(new TextDecoder().decode(res.body)).toBe('moved');
    expect(res.url).toBe(main.url('/redirect?to=/echo'));
  });

  it('turns a POST into a GET on 303 and drops credentials on a cross-origin redirect', async () => {
    const to = other.url('/echo');
    const res = await send({
      method: 'POST',
      url: main.url(`/redirect?status=303&to=${encodeURIComponent(to)}`),
      headers: { Authorization: 'Bearer secret', 'Content-Type': 'text/plain', 'X-Keep': 'yes' },
      body: 'payload',
      maxRedirects: 1,
    });
    const echo = JSON.parse(new TextDecoder().decode(res.body));
    expect(echo.method).toBe('GET');
    expect(echo.body).toBe('');
    expect(echo.headers.authorization).toBeUndefined();
    expect(echo.headers['content-type']).toBeUndefined();
    expect(echo.headers['x-keep']).toBe('yes');
    expect(res.url).toBe(to);
  });

  it.each([302, 303, 307, 308])(
    'on a cross-origin %i drops every secret header (well-known and marked); same origin keeps them',
    async (status) => {
      const headers = {
        Authorization: 'Bearer s1',
        'X-Api-Key': 's2',
        'X-Vendor-Token': 's3',
        'X-Signed': 'sig s4',
        'X-Keep': 'yes',
      };
      const follow = async (to: string) => {
        const res = await send({
          method: 'POST',
          url: main.url(`/redirect?status=${status}&to=${encodeURIComponent(to)}`),
          headers,
          sensitiveHeaders: ['x-vendor-token', 'X-SIGNED'],
          body: 'payload',
          maxRedirects: 1,
        });
        return JSON.parse(new TextDecoder().decode(res.body)).headers as Record<string, string>;
      };
      const crossed = await follow(other.url('/echo'));
      expect(crossed['x-keep']).toBe('yes');
      for (const name of ['authorization', 'x-api-key', 'x-vendor-token', 'x-signed']) {
        expect(crossed[name], name).toBeUndefined();
      }
      const stayed = await follow('/echo');
      expect(stayed).toMatchObject({
        authorization: 'Bearer s1',
        'x-api-key': 's2',
        'x-vendor-token': 's3',
        'x-signed': 'sig s4',
        'x-keep': 'yes',
      });
    },
  );

  // The servers below never finish: a timeout at all proves the deadline works. The bounds only
  // tell "about timeoutMs" from a later default, with room for a busy machine.
  it('times out a server that never answers, within about timeoutMs', async () => {
    const started = performance.now();
    const error = await refusal(send({ url: main.url('/hang'), timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('times out a body that drips forever', async () => {
    const started = performance.now();
    expect((await refusal(send({ url: main.url('/drip'), timeoutMs: 300 }))).code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('times out while DNS hangs', async () => {
    const started = performance.now();
    expect((await refusal(send({ url: 'http://slow-dns.test/', timeoutMs: 200 }))).code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("throws the caller's abort reason", async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(send({ url: main.url('/hang'), signal: controller.signal })).rejects.toBe(reason);
  });

  it('stops reading a 20 MB stream at maxResponseBytes', async () => {
    const error = await refusal(send({ url: main.url('/huge'), maxResponseBytes: MIB }));
    expect(error.code).toBe('response_too_large');
    const declared = await refusal(send({ url: main.url('/huge-with-length'), maxResponseBytes: MIB }));
    expect(declared.code).toBe('response_too_large');
  });

  it('reads a body right up to maxResponseBytes', async () => {
    const res = await send({ url: main.url('/created'), maxResponseBytes: 7 });
    expect(res.body.byteLength).toBe(7);
    expect((await refusal(send({ url: main.url('/created'), maxResponseBytes: 6 }))).code).toBe(
      'response_too_large',
    );
  });

  it('reports names that do not resolve and refused connections as network_error', async () => {
    expect((await refusal(send({ url: 'http://does-not-exist.invalid/' }))).code).toBe('network_error');
    const closed = await startServer();
    const url = closed.url('/');
    await stopServer(closed);
    expect((await refusal(send({ url }))).code).toBe('network_error');
  });

  it('refuses bad limits as programmer errors', async () => {
    await expect(send({ url: main.url('/echo'), timeoutMs: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(send({ url: main.url('/echo'), maxRedirects: -1 })).rejects.toBeInstanceOf(RangeError);
  });
});
