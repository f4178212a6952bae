import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from './free-port';

const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freeLoopbackPort', () => {
  it('hands out ports below the ephemeral range that a server can then listen on, a new one each time', async () => {
    const ports = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(Math.min(20_000, ephemeralLow));
      servers.push(await listen(port));
    }
  });

  it('skips a port another server listens on', async () => {
    const before = await freeLoopbackPort();
    const taken = before + 1 < ephemeralLow ? before + 1 : 10_000;
    servers.push(await listen(taken));
    const after = await freeLoopbackPort();
    expect(after).not.toBe(taken);
    servers.push(await listen(after));
  });
});
