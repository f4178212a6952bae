import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChaosStack } from './stack';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const TERMINAL = new Set(['success', 'partial', 'failed', 'cancelled']);

/** One kind of execution in the mix: its graph, its input, and what a correct run leaves behind. */
export interface Shape {
  name: string;
  /** The steps a successful run records: `node` or `node:iteration`. */
  steps: string[];
  /** Side-effect keys (`<node>[:<i>]`, prefixed by the execution id at the counting server). */
  effects: { suffix: string; path: string; minRequests: number }[];
}

const ITEMS = ['a', 'b', 'c'];

/** The three graphs of the mix and their expected records. */
export const SHAPES: Shape[] = [
  {
    name: 'http-delay-flaky',
    steps: ['call', 'nap', 'flaky'],
    effects: [
      { suffix: 'call', path: '/effect', minRequests: 1 },
      // The counting server answers 500 to the first request of each key: the step's retry sends the
      // same key again, so 2 requests and one applied effect.
      { suffix: 'flaky', path: '/flaky', minRequests: 2 },
    ],
  },
  {
    name: 'wait-for-event',
    steps: ['hold', 'after'],
    effects: [{ suffix: 'after', path: '/effect', minRequests: 1 }],
  },
  {
    name: 'loop',
    steps: ['each', ...ITEMS.map((_, i) => `item:${i}`), 'end'],
    effects: ITEMS.map((_, i) => ({ suffix: `item:${i}`, path: '/effect', minRequests: 1 })),
  },
];

function graphOf(shape: Shape, counter: string) {
  const http = (path: string, body: unknown) => ({
    type: 'action.http_request',
    config: { method: 'POST', url: `${counter}${path}`, body, timeout_ms: 10_000 },
  });
  const common = { trigger_type: 'manual', status: 'active', name: `chaos ${shape.name}` };
  if (shape.name === 'http-delay-flaky')
    return {
      ...common,
      nodes: [
        { id: 'call', ...http('/effect', { n: '{{trigger.n}}' }) },
        { id: 'nap', type: 'action.delay', config: { duration: '3s' } },
        { id: 'flaky', ...http('/flaky', { n: '{{trigger.n}}' }) },
      ],
      edges: [
        { source: 'call', target: 'nap' },
        { source: 'nap', target: 'flaky' },
      ],
    };
  if (shape.name === 'wait-for-event')
    return {
      ...common,
      nodes: [
        {
          id: 'hold',
          type: 'action.wait_for_event',
          config: {
            event: 'chaos.release',
            match: { field: 'ticket', equals: '{{trigger.ticket}}' },
            timeout: '30m',
          },
        },
        { id: 'after', ...http('/effect', { ticket: '{{trigger.ticket}}' }) },
      ],
      edges: [{ source: 'hold', target: 'after', source_handle: 'received' }],
    };
  return {
    ...common,
    nodes: [
      { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}' } },
      { id: 'item', ...http('/effect', { item: '{{loop.item}}' }) },
      { id: 'end', type: 'action.transform', config: { assignments: [{ key: 'done', value: 'yes' }] } },
    ],
    edges: [
      { source: 'each', target: 'item', source_handle: 'each' },
      { source: 'each', target: 'end', source_handle: 'done' },
    ],
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req);
}

/** Requests seen per idempotency key (and per path), as the remote side of every side effect. */
export interface Counter {
  url: string;
  byKey: Map<string, { path: string; requests: number }>;
  withoutKey: number;
  close(): void;
}

const EFFECT_MS = 400;

/** The counting server: 200 on `/effect`; on `/flaky` 500 to a key's first request, then 200. */
export async function startCounter(): Promise<Counter> {
  const byKey = new Map<string, { path: string; requests: number }>();
  const counter = { withoutKey: 0 };
  const server = createServer(async (req, res) => {
    await drain(req);
    const key = req.headers['idempotency-key'];
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (typeof key !== 'string') {
      counter.withoutKey++;
      res.writeHead(400).end('no idempotency key');
      return;
    }
    const seen = byKey.get(key) ?? { path, requests: 0 };
    seen.requests++;
    byKey.set(key, seen);
    const fail = path === '/flaky' && seen.requests === 1;
    // A slow answer keeps side effects in flight, so a fault lands between "sent" and "recorded".
    await sleep(EFFECT_MS);
    res
      .writeHead(fail ? 500 : 200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ok: !fail }));
  });
  const url = await listen(server);
  return {
    url,
    byKey,
    get withoutKey() {
      return counter.withoutKey;
    },
    close: () => server.close(),
  };
}

/** The subscribed receiver of outbound webhooks: hits per X-Webhook-Id. */
export async function startReceiver(): Promise<{ url: string; hits: Map<string, number>; close(): void }> {
  const hits = new Map<string, number>();
  const server = createServer(async (req, res) => {
    await drain(req);
    const id = String(req.headers['x-webhook-id'] ?? '');
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.writeHead(200).end('ok');
  });
  return { url: await listen(server), hits, close: () => server.close() };
}

/** An API call that answers the status and parsed body instead of throwing (faults make errors normal). */
export function apiCaller(stack: ChaosStack) {
  return async (method: string, url: string, body?: unknown, timeoutMs = 15_000) => {
    const started = performance.now();
    try {
      const res = await fetch(`${stack.base}/api/v1${url}`, {
        method,
        headers: { 'x-api-key': stack.key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        json = { raw: text.slice(0, 200) };
      }
      return { status: res.status, json, ms: performance.now() - started };
    } catch (error) {
      return { status: 0, json: { raw: String(error) }, ms: performance.now() - started };
    }
  };
}

export interface Started {
  id: string;
  shape: Shape;
  ticket: string;
}

/**
 * Saves the three graphs and a webhook subscription on execution.completed, then starts
 * `executions` executions round-robin over the shapes. Returns the accepted ones.
 */
export async function startLoad(
  stack: ChaosStack,
  counter: Counter,
  receiverUrl: string,
  executions: number,
) {
  const call = apiCaller(stack);
  const hook = await call('POST', '/webhooks', {
    url: `${receiverUrl}/hook`,
    events: ['execution.completed'],
  });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${JSON.stringify(hook.json)}`);
  const workflowIds: string[] = [];
  for (const shape of SHAPES) {
    const r = await call('POST', '/workflows', graphOf(shape, counter.url));
    if (r.status !== 201)
      throw new Error(`POST /workflows ${shape.name}: ${r.status} ${JSON.stringify(r.json)}`);
    workflowIds.push(String(r.json.id));
  }
  const started: Started[] = [];
  for (let n = 0; n < executions; n++) {
    const k = n % SHAPES.length;
    const ticket = `t${n}`;
    const r = await call('POST', `/workflows/${workflowIds[k]}/execute`, {
      input: { n, ticket, items: ITEMS },
    });
    if (r.status >= 300) throw new Error(`execute: ${r.status} ${JSON.stringify(r.json)}`);
    started.push({ id: String(r.json.execution_id), shape: SHAPES[k] as Shape, ticket });
  }
  return { started, webhookId: String(hook.json.id), workflowIds };
}

/**
 * Polls the API until every execution is terminal (or `capMs` passes), publishing each waiting
 * execution's `chaos.release` event once it is seen waiting (a publish that fails is tried again on
 * the next round). Tolerates API errors: during a fault they are expected.
 */
export async function waitQuiescent(
  stack: ChaosStack,
  started: Started[],
  capMs: number,
  say: (l: string) => void,
) {
  const call = apiCaller(stack);
  const statuses = new Map<string, string>();
  const released = new Set<string>();
  const t0 = Date.now();
  let lastReport = 0;
  let progressAt = Date.now();
  let lastDone = -1;
  while (Date.now() - t0 < capMs) {
    for (const e of started) {
      if (TERMINAL.has(statuses.get(e.id) ?? '')) continue;
      const r = await call('GET', `/executions/${e.id}`, undefined, 5_000);
      if (r.status === 200) statuses.set(e.id, String(r.json.status));
      if (e.shape.name === 'wait-for-event' && statuses.get(e.id) === 'waiting' && !released.has(e.id)) {
        const p = await call('POST', '/events', { event: 'chaos.release', payload: { ticket: e.ticket } });
        if (p.status === 202 || p.status === 200) released.add(e.id);
      }
    }
    const done = started.filter((e) => TERMINAL.has(statuses.get(e.id) ?? '')).length;
    if (done === started.length) break;
    if (done !== lastDone) {
      lastDone = done;
      progressAt = Date.now();
    }
    // After a crash (restarted like a supervisor would), two quiet minutes end the wait early:
    // waiting out the cap would only delay the ledger that reports it.
    if (stack.deaths().length > 0 && Date.now() - progressAt > 120_000) {
      say(`  … no progress for 120 s since ${stack.deaths().join('; ')}`);
      break;
    }
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      say(`  … ${done}/${started.length} terminal after ${Math.round((Date.now() - t0) / 1000)} s`);
    }
    await sleep(1000);
  }
  return { statuses, seconds: (Date.now() - t0) / 1000 };
}
