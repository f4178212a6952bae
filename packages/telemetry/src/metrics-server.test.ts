import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { collectProcessMetrics, metrics } from './metrics';
import { mayReadMetrics } from './metrics-access';
import { startMetricsServer } from './metrics-server';

/** An address of this machine that is not loopback, when it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('the worker metrics server', () => {
  it('answers GET /metrics with the registry in Prometheus text, and nothing else', async () => {
    collectProcessMetrics();
    metrics.executionsFinished.inc({ status: 'success' });
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toMatch(/^weft_executions_finished_total\{status="success"\} [1-9]/m);
      expect(text).toContain('# TYPE weft_step_duration_seconds histogram');
      expect(text).toContain('process_cpu_seconds_total');
      expect(text).toContain('nodejs_heap_size_used_bytes');
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!outsideAddress)('refuses a caller from another address unless it brings the token', async () => {
    const server = await startMetricsServer({ host: '0.0.0.0', port: 0, token: 'worker-s3cret' });
    try {
      const url = server.url.replace('0.0.0.0', outsideAddress as string);
      const refused = await fetch(url);
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain('weft_');
      expect((await fetch(url, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(url, { headers: { Authorization: 'Bearer worker-s3cret' } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('mayReadMetrics', () => {
  it('lets local callers in, others only with the token', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(mayReadMetrics({ address, authorization: undefined }, undefined), address).toBe(true);
    }
    expect(mayReadMetrics({ address: '10.0.0.7', authorization: undefined }, 't')).toBe(false);
    expect(mayReadMetrics({ address: undefined, authorization: 'Bearer t' }, 't')).toBe(true);
    expect(mayReadMetrics({ address: '10.0.0.7', authorization: 'Bearer x' }, 't')).toBe(false);
    // No token configured: a bearer proves nothing.
    expect(mayReadMetrics({ address: '10.0.0.7', authorization: 'Bearer t' }, undefined)).toBe(false);
    // A wrong token is refused even from a local address: it was meant to be checked.
    expect(mayReadMetrics({ address: '127.0.0.1', authorization: 'Bearer x' }, 't')).toBe(false);
  });
});
