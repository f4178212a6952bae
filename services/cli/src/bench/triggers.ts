import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hexSignature } from '@weft/domain';

import { closedLoop, percentile } from './load';
import { processMemory } from './process-memory';
import { BENCH_TASK_QUEUE, type BenchStack, fmt, startBenchStack } from './stack';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const ONE_NODE = {
  nodes: [{ id: 'note', type: 'action.transform', config: { assignments: [{ key: 'seen', value: 'yes' }] } }],
  edges: [],
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function waitUntil(what: string, timeoutMs: number, done: () => Promise<boolean>) {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** Outbound deliveries to a local receiver that checks every signature, `concurrency` in flight. */
async function benchDeliveries(stack: BenchStack, total: number, concurrency: number) {
  const seen = new Map<string, number>();
  let badSignatures = 0;
  let secret = '';
  const receiver = createServer(async (req, res) => {
    const body = await readBody(req);
    const expected = Buffer.from(hexSignature(secret, body));
    const given = Buffer.from(String(req.headers['x-webhook-signature'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) badSignatures++;
    const id = String(req.headers['x-webhook-id']);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    res.writeHead(200).end('ok');
  });
  const url = await listen(receiver);
  let webhookId: string | undefined;
  try {
    const webhook = await stack.call('POST', '/webhooks', {
      url: `${url}/hook`,
      events: ['execution.completed'],
    });
    secret = String(webhook.secret);
    webhookId = webhook.id;
    // Each task writes the outbox row an event would write, then runs its delivery workflow: this
    // measures delivery alone. (Rows written ahead would be picked up by the sweeper after a minute.)
    const ids = Array.from({ length: total }, () => randomUUID());
    const r = await closedLoop(total, concurrency, async (i) => {
      const id = ids[i] as string;
      const body = JSON.stringify({
        id,
        event: 'execution.completed',
        created_at: new Date().toISOString(),
        data: {},
      });
      await stack.admin`
        insert into webhook_deliveries (id, organization_id, webhook_id, event, dedup_key, body)
        values (${id}, ${stack.organizationId}, ${webhook.id}, 'execution.completed', ${`bench:${id}`}, ${body})`;
      await stack.client.workflow.execute('deliverWebhook', {
        workflowId: `delivery-${id}`,
        taskQueue: BENCH_TASK_QUEUE,
        args: [{ organizationId: stack.organizationId, deliveryId: id }],
      });
    });
    const [row] = await stack.admin`
      select count(*) filter (where status = 'succeeded')::int as ok, count(*)::int as n
      from webhook_deliveries where webhook_id = ${webhook.id}`;
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    process.stdout.write(
      `(3) outbound deliveries, concurrency ${concurrency}: ${fmt(r.perSecond)} deliveries/s, ` +
        `p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms (start → delivered and recorded); ` +
        `received ${seen.size}/${total}, duplicates ${duplicates}, bad signatures ${badSignatures}, ` +
        `recorded succeeded ${row?.ok}/${row?.n}\n`,
    );
  } finally {
    // Later scenarios complete executions too: without the subscription they are not sent here.
    if (webhookId) await stack.call('DELETE', `/webhooks/${webhookId}`);
    receiver.close();
  }
}

/**
 * Polling: `workflows` feeds; the k-th request of a feed answers items [10k, 10k+50), so each poll
 * after the first brings exactly 10 new items. Executions started must equal the new items served.
 */
async function benchPolling(stack: BenchStack, workflows: number, polls: number) {
  const requests = new Map<string, number>();
  const feed = createServer((req, res) => {
    const path = req.url ?? '/';
    const k = requests.get(path) ?? 0;
    requests.set(path, k + 1);
    const items = Array.from({ length: 50 }, (_, i) => ({ id: 10 * k + i, path }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items }));
  });
  const base = await listen(feed);
  try {
    const ids: string[] = [];
    for (let i = 0; i < workflows; i++) {
      const workflow = await stack.call('POST', '/workflows', {
        name: `bench poll ${i}`,
        status: 'active',
        trigger_type: 'polling',
        // An hour apart: the bench triggers each poll itself; dedup covers a scheduled one slipping in.
        trigger_config: {
          url: `${base}/feed/${i}`,
          interval_minutes: 60,
          items_path: 'items',
          dedup_key: 'id',
        },
        ...ONE_NODE,
      });
      ids.push(workflow.id);
    }
    const started = performance.now();
    for (let round = 0; round < polls; round++) {
      const roundStart = new Date();
      const t0 = performance.now();
      await Promise.all(ids.map((id) => stack.client.schedule.getHandle(`poll-${id}`).trigger()));
      await waitUntil(`poll round ${round + 1}`, 300_000, async () => {
        const [row] = await stack.admin`
          select count(*)::int as n from poll_states
          where organization_id = ${stack.organizationId} and last_polled_at >= ${roundStart}`;
        return (row?.n ?? 0) >= ids.length;
      });
      process.stdout.write(
        `    poll round ${round + 1}: ${ids.length} polls recorded in ${fmt((performance.now() - t0) / 1000, 2)} s\n`,
      );
    }
    // Each feed's first answer is the baseline (50 items taken as seen, not run).
    const served = [...requests.values()].reduce((sum, k) => sum + 50 + 10 * (k - 1), 0);
    const newItems = served - 50 * requests.size;
    let executions = 0;
    await waitUntil('polling executions to settle', 300_000, async () => {
      const [row] = await stack.admin`
        select count(*)::int as n,
               count(*) filter (where status in ('success','partial','failed','cancelled'))::int as done
        from executions where organization_id = ${stack.organizationId} and trigger = 'polling'`;
      executions = row?.n ?? 0;
      return executions >= newItems && row?.done === row?.n;
    });
    await sleep(2000);
    const [final] = await stack.admin`
      select count(*)::int as n from executions where organization_id = ${stack.organizationId} and trigger = 'polling'`;
    executions = final?.n ?? 0;
    process.stdout.write(
      `(2) polling: ${workflows} workflows × ${polls} polls (${[...requests.values()].reduce((a, b) => a + b, 0)} requests): ` +
        `new items ${newItems}, executions started ${executions} (${executions === newItems ? 'exact' : 'MISMATCH'}), ` +
        `all settled after ${fmt((performance.now() - started) / 1000, 1)} s\n`,
    );
  } finally {
    feed.close();
  }
}

/** Schedules: `workflows` active workflows on `* * * * *` for `minutes`; skew = recorded − scheduled. */
async function benchSchedules(stack: BenchStack, workflows: number, minutes: number) {
  for (let i = 0; i < workflows; i++) {
    await stack.call('POST', '/workflows', {
      name: `bench every minute ${i}`,
      status: 'active',
      trigger_type: 'schedule',
      trigger_config: { cron: '* * * * *' },
      ...ONE_NODE,
    });
  }
  const from = new Date();
  process.stdout.write(`    ${workflows} scheduled workflows active; watching for ${minutes} minutes\n`);
  await sleep(minutes * 60_000);
  const to = new Date();
  await sleep(15_000); // let the last minute's fires be recorded
  const rows = await stack.admin<{ skew_ms: number; status: string }[]>`
    select extract(epoch from (started_at - (trigger_payload->>'scheduled_at')::timestamptz)) * 1000 as skew_ms, status
    from executions
    where organization_id = ${stack.organizationId} and trigger = 'schedule'
      and (trigger_payload->>'scheduled_at')::timestamptz between ${from} and ${to}`;
  const skews = rows.map((r) => Number(r.skew_ms)).sort((a, b) => a - b);
  const fireMinutes = Math.floor(to.getTime() / 60_000) - Math.ceil(from.getTime() / 60_000) + 1;
  process.stdout.write(
    `(1) schedules: ${workflows} workflows on * * * * * over ${minutes} min: ${skews.length} fires ` +
      `(expected ${workflows * fireMinutes}), skew scheduled → recorded p50 ${fmt(percentile(skews, 50), 0)} ms, ` +
      `p99 ${fmt(percentile(skews, 99), 0)} ms, max ${fmt(skews.at(-1) ?? Number.NaN, 0)} ms; ` +
      `${rows.filter((r) => r.status === 'success').length} succeeded\n`,
  );
}

/**
 * `weft bench triggers` (issue 4 §7), on the embedded defaults: outbound deliveries/s, polling
 * dedup at volume, and the fire-time skew of 200 every-minute schedules.
 */
export async function benchTriggersCommand(options: {
  deliveries: number;
  concurrency: number;
  pollers: number;
  polls: number;
  schedules: number;
  minutes: number;
}) {
  const stack = await startBenchStack({ extraEnv: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
  try {
    if (options.deliveries > 0) await benchDeliveries(stack, options.deliveries, options.concurrency);
    if (options.pollers > 0) await benchPolling(stack, options.pollers, options.polls);
    if (options.schedules > 0 && options.minutes > 0)
      await benchSchedules(stack, options.schedules, options.minutes);
    const worker = stack.worker.pid ? processMemory(stack.worker.pid) : undefined;
    const api = stack.api.pid ? processMemory(stack.api.pid) : undefined;
    process.stdout.write(
      `worker RSS ${fmt(worker?.rssMiB ?? Number.NaN)} MiB (peak ${fmt(worker?.peakMiB ?? Number.NaN)}), API RSS ${fmt(api?.rssMiB ?? Number.NaN)} MiB\n`,
    );
  } finally {
    await stack.stop();
  }
}
