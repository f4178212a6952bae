import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderMetrics } from './metrics';
import { mayReadMetrics } from './metrics-access';

export interface MetricsServerOptions {
  /** METRICS_HOST: 127.0.0.1 by default, so only this machine can reach it at all. */
  host: string;
  /** 0 lets the system choose (tests). */
  port: number;
  /** METRICS_TOKEN: lets callers on other machines in with `Authorization: Bearer <token>`. */
  token?: string;
}

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/**
 * A process without an HTTP server of its own (the worker) serves the registry at `/metrics` on
 * a port of its own. Nothing else is answered.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const caller = { address: req.socket.remoteAddress, authorization: req.headers.authorization };
    if (!mayReadMetrics(caller, options.token)) {
      res
        .writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' })
        .end('Metrics need METRICS_TOKEN as a bearer token, or a caller on this machine.\n');
      return;
    }
    renderMetrics().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType }).end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
