import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Scenario (g) of `weft bench engine`, the most common real shape: an event starts a workflow that
 * calls an HTTP API (a local server here) and transforms its answer. The bench reaches the server
 * through the SSRF guard like any user would, with SSRF_ALLOWLIST opening 127.0.0.1.
 */
export function httpFlow(name: string, event: string, baseUrl: string) {
  return {
    name,
    status: 'active',
    trigger_type: 'event',
    trigger_config: { event },
    nodes: [
      {
        id: 'quote',
        type: 'action.http_request',
        config: { method: 'GET', url: `${baseUrl}/quote?total={{trigger.total}}` },
      },
      {
        id: 'price',
        type: 'action.transform',
        config: {
          assignments: [
            { key: 'total', value: '{{nodes.quote.body.total}}' },
            { key: 'currency', value: '{{nodes.quote.body.currency}}' },
          ],
        },
      },
    ],
    edges: [{ source: 'quote', target: 'price' }],
  };
}

/** The API (g) calls: answers `GET /quote?total=N` with a small JSON body and counts its calls. */
export async function startQuoteServer() {
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls++;
    const total = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('total') ?? 0);
    const body = JSON.stringify({ total, currency: 'EUR', quoted_at: new Date().toISOString() });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
