import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A port that is free on 127.0.0.1 now, for a server that will listen on it a moment later (tests,
 * `weft bench`, `weft chaos`). It comes from below the kernel's ephemeral range: a port that range
 * hands out (`listen(0)`) is also what every outgoing connection takes its local port from, so one
 * such connection in the seconds before the server binds makes it fail with "address already in
 * use" (seen with three test files at a time). Each process walks up from a random start, so the
 * processes of a run seldom try the same ports. 20000-32767 is left to temporal-server's port
 * ranges (`freeClusterPortRange`).
 */
export async function freeLoopbackPort(): Promise<number> {
  const [first, last] = portsBelowEphemeral();
  const size = last - first + 1;
  if (size < 1000) return listenOnce(0);
  nextPort ??= first + Math.floor(Math.random() * size);
  for (let tries = 0; tries < 500; tries++) {
    const port = first + ((nextPort++ - first) % size);
    if (await loopbackPortFree(port)) return port;
  }
  return listenOnce(0);
}

let nextPort: number | undefined;

/** The ports this process hands out: 10000-19999, or fewer when the ephemeral range starts lower. */
function portsBelowEphemeral(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    if (Number(low) > 0) ephemeralLow = Number(low);
  } catch {
    // Not Linux: the IANA ephemeral range starts at 49152, Linux's default at 32768; keep below both.
  }
  return [10_000, Math.min(19_999, ephemeralLow - 1)];
}

/** Whether a server could listen on 127.0.0.1:`port` now. */
export async function loopbackPortFree(port: number): Promise<boolean> {
  try {
    await listenOnce(port);
    return true;
  } catch {
    return false;
  }
}

/** Listens on 127.0.0.1:`port` and closes again; resolves with the port that was bound. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
