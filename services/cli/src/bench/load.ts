import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

export interface LoadRequest {
  method: string;
  path: string;
  body?: string;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/**
 * A closed-loop load generator: `concurrency` workers each send the next request as soon as the
 * previous one answered, for `seconds`. Keep-alive sockets; latency measured per request.
 */
export async function runLoad(options: {
  baseUrl: string;
  headers: Record<string, string>;
  concurrency: number;
  seconds: number;
  next: () => LoadRequest;
  expectStatus: number;
}): Promise<LoadResult> {
  const url = new URL(options.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const send = (request: LoadRequest) =>
    new Promise<number>((resolve) => {
      const headers: Record<string, string> = { ...options.headers };
      if (request.body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(request.body));
      }
      const req = http.request(
        { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', () => resolve(0));
      req.end(request.body);
    });

  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const status = await send(options.next());
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== options.expectStatus) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
  };
}

/**
 * Runs `total` tasks with `concurrency` in flight; returns per-task latencies (ms) and elapsed seconds.
 * With a `label`, prints a progress line to stderr every second, so a long run never looks hung.
 */
export async function closedLoop(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  options: { label?: string } = {},
) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  let reported = 0;
  const progress = options.label
    ? setInterval(() => {
        const done = latencies.length;
        process.stderr.write(
          `  ${options.label}: ${done}/${total} done, ${(done - reported).toFixed(0)}/s\n`,
        );
        reported = done;
      }, 1000)
    : undefined;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const i = next++;
          const t0 = performance.now();
          await task(i);
          latencies.push(performance.now() - t0);
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  latencies.sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    seconds,
  };
}
