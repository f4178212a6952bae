import { createServer, type Server } from 'node:http';
import {
  createOutboundHttpClient,
  type OutboundHttpClient,
  pollWorkflow,
  pruneExpiredRows,
} from '@weft/domain';
import { triggerScheduleId } from '@weft/temporal/schedules';
import { createTemporalEngine } from '@weft/temporal/temporal-engine';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
let http: OutboundHttpClient;
let deps: Parameters<typeof pollWorkflow>[0];
/** What the local JSON API answers, per path: a status and a raw body. */
const answers = new Map<string, { status: number; body: string }>();
const serve = (path: string, body: unknown, status = 200) =>
  answers.set(path, { status, body: typeof body === 'string' ? body : JSON.stringify(body) });

const echo = {
  id: 'echo',
  type: 'action.transform',
  config: { assignments: [{ key: 'item', value: '{{trigger}}' }] },
};

async function createPollingWorkflow(path: string, config: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: {
      name: `poll ${path}`,
      trigger_type: 'trigger.polling',
      trigger_config: { url: `${baseUrl}${path}`, interval_minutes: 60, baseline: false, ...config },
      status: 'active',
      nodes: [echo],
    },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.id as string;
}

const poll = (workflowId: string, client = http) =>
  pollWorkflow({ ...deps, http: client }, { organizationId: org.organizationId, workflowId });

/** Every execution of the workflow, settled, with the item it ran on. */
async function itemsRun(workflowId: string): Promise<unknown[]> {
  const res = await h.request('GET', `/api/v1/executions?workflow_id=${workflowId}&per_page=100`, {
    key: org.key,
  });
  const list = ((await res.json()) as any).data as any[];
  const done = await Promise.all(list.map((e) => h.waitForExecution(org.key, e.id)));
  for (const e of done)
    expect(e).toMatchObject({ status: 'success', trigger: 'polling', event: 'trigger.polling' });
  return done.map((e) => e.steps[0].output.item);
}

const byId = (items: unknown[]) => (items as { id: number }[]).map((i) => i.id).sort((a, b) => a - b);

async function pollStatus(workflowId: string) {
  const res = await h.request('GET', `/api/v1/workflows/${workflowId}/poll-status`, { key: org.key });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/authed' && req.headers['x-feed-key'] !== FEED_KEY) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"who are you"}');
      return;
    }
    const answer = answers.get(req.url ?? '/') ?? { status: 404, body: '{"error":"no such path"}' };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.1/32'] });
  org = await h.createOrg();
  http = createOutboundHttpClient({ allowlist: ['127.0.0.1/32'] });
  deps = {
    db: h.db.app.db,
    http,
    engine: createTemporalEngine({ client: h.client, taskQueue: h.taskQueue }),
    secrets: h.secrets,
  };
}, 120_000);

afterAll(async () => {
  await http?.close();
  await h?.close();
  server?.close();
});

/** The feed at /authed answers only with this header value (sent from an http_header credential). */
const FEED_KEY = 'feed-key-7c1e9b2a44d0';

describe('polling', () => {
  it('authenticates with its credential; a credential gone later fails the poll clearly', async () => {
    serve('/authed', [{ id: 1 }]);
    const created = await h.request('POST', '/api/v1/credentials', {
      key: org.key,
      body: { name: 'Feed key', type: 'http_header', fields: { name: 'X-Feed-Key', value: FEED_KEY } },
    });
    const credential = (await created.json()) as any;
    expect(created.status).toBe(201);
    const workflowId = await createPollingWorkflow('/authed', {
      dedup_key: 'id',
      credential_id: credential.id,
    });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 1 });
    expect(byId(await itemsRun(workflowId))).toEqual([1]);
    const stored = await h.db.admin`select trigger_config from workflows where id = ${workflowId}`;
    expect(JSON.stringify(stored)).not.toContain(FEED_KEY);

    await h.db.admin`delete from credentials where id = ${credential.id}`;
    expect(await poll(workflowId)).toMatchObject({ status: 'error', error: { code: 'credential_invalid' } });
  });

  it('runs each new item exactly once across two polls whose answers overlap', async () => {
    serve('/overlap', { data: { items: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    const workflowId = await createPollingWorkflow('/overlap', { items_path: 'data.items', dedup_key: 'id' });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', baseline: false, newItems: 3 });
    serve('/overlap', { data: { items: [{ id: 2 }, { id: 3 }, { id: 4 }] } });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 1 });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 0 });
    expect(byId(await itemsRun(workflowId))).toEqual([1, 2, 3, 4]);
    expect(await pollStatus(workflowId)).toMatchObject({
      last_status: 'ok',
      last_new_items: 0,
      last_error: null,
    });
  });

  it('keeps the dedup keys of items the source still lists, and lets retention take the others', async () => {
    serve('/retained', [{ id: 1 }, { id: 2 }]);
    const workflowId = await createPollingWorkflow('/retained', { dedup_key: 'id' });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 2 });
    // Both keys were last seen 40 days ago; the source now lists only item 2.
    await h.db
      .admin`update poll_seen_items set last_seen_at = now() - interval '40 days' where workflow_id = ${workflowId}`;
    serve('/retained', [{ id: 2 }]);
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 0 });
    const prune = () =>
      pruneExpiredRows(h.db.app.db, { executionRetentionDays: 0, auditLogRetentionDays: 0 });
    const keys = async () =>
      (
        await h.db.admin<{ dedup_key: string }[]>`
          select dedup_key from poll_seen_items where workflow_id = ${workflowId} order by 1`
      ).map((k) => k.dedup_key);
    // Item 1's execution still exists, and a re-listed item reuses its id: its key must stay.
    expect((await prune()).poll_seen_items).toBe(0);
    expect(await keys()).toEqual(['1', '2']);
    // Execution retention takes that execution: now the key goes.
    await h.db.admin`delete from executions where id = (
      select execution_id from poll_seen_items where workflow_id = ${workflowId} and dedup_key = '1')`;
    expect((await prune()).poll_seen_items).toBe(1);
    expect(await keys()).toEqual(['2']);
    // Item 2 stays deduplicated; item 1, gone from the source for over 30 days, would run again.
    serve('/retained', [{ id: 1 }, { id: 2 }]);
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 1 });
    expect(byId(await itemsRun(workflowId))).toEqual([1, 2]);
  });

  it('starts each item exactly once when two polls of the same data run at the same time', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ id: i + 1 }));
    serve('/concurrent', items);
    const workflowId = await createPollingWorkflow('/concurrent', { dedup_key: 'id' });
    const results = await Promise.all([poll(workflowId), poll(workflowId), poll(workflowId)]);
    const started = results.flatMap((r) => (r.status === 'ok' ? r.executionIds : []));
    expect(started).toHaveLength(20);
    expect(new Set(started).size).toBe(20);
    expect(byId(await itemsRun(workflowId))).toEqual(items.map((i) => i.id));
  });

  it('takes the first answer as a baseline by default and runs only later items', async () => {
    serve('/baseline', [{ id: 1 }, { id: 2 }]);
    const workflowId = await createPollingWorkflow('/baseline', { dedup_key: 'id', baseline: undefined });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', baseline: true, newItems: 0 });
    expect((await pollStatus(workflowId)).baseline_taken_at).not.toBeNull();
    serve('/baseline', [{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', baseline: false, newItems: 1 });
    expect(byId(await itemsRun(workflowId))).toEqual([3]);
  });

  it('dedups by dedup_key when set, else by a hash of the whole item (key order ignored)', async () => {
    serve('/keyed', [{ id: 1, v: 'a' }]);
    const keyed = await createPollingWorkflow('/keyed', { dedup_key: 'id' });
    await poll(keyed);
    serve('/keyed', [{ id: 1, v: 'changed' }]);
    expect(await poll(keyed)).toMatchObject({ newItems: 0 });

    serve('/hashed', [{ id: 1, v: 'a' }]);
    const hashed = await createPollingWorkflow('/hashed');
    await poll(hashed);
    serve('/hashed', [{ v: 'a', id: 1 }]);
    expect(await poll(hashed)).toMatchObject({ newItems: 0 });
    serve('/hashed', [{ v: 'changed', id: 1 }]);
    expect(await poll(hashed)).toMatchObject({ newItems: 1 });
    const ran = (await itemsRun(hashed)) as { v: string }[];
    expect(ran.sort((x, y) => x.v.localeCompare(y.v))).toEqual([
      { id: 1, v: 'a' },
      { id: 1, v: 'changed' },
    ]);
  });

  it('records a failing poll (5xx, bad JSON, no list, SSRF refusal) and polls fine afterwards', async () => {
    const workflowId = await createPollingWorkflow('/flaky', { items_path: 'items', dedup_key: 'id' });
    const cases: [() => void, string, OutboundHttpClient?][] = [
      [() => serve('/flaky', { error: 'down' }, 503), 'http_status'],
      [() => serve('/flaky', '{"items": [', 200), 'invalid_json'],
      [() => serve('/flaky', { items: 'nope' }), 'items_not_array'],
      [
        () => serve('/flaky', { items: [{ id: 1 }] }),
        'ssrf_blocked',
        createOutboundHttpClient({ allowlist: [] }),
      ],
    ];
    for (const [arrange, code, client] of cases) {
      arrange();
      const result = await poll(workflowId, client);
      expect(result).toMatchObject({ status: 'error', error: { code } });
      const status = await pollStatus(workflowId);
      expect(status).toMatchObject({ last_status: 'error', last_error: { code }, last_new_items: 0 });
      expect(status.last_error.message).toBeTruthy();
      await client?.close();
    }
    serve('/flaky', { items: [{ id: 1 }] });
    expect(await poll(workflowId)).toMatchObject({ status: 'ok', newItems: 1 });
    expect(await pollStatus(workflowId)).toMatchObject({
      last_status: 'ok',
      last_error: null,
      last_new_items: 1,
    });
    expect(byId(await itemsRun(workflowId))).toEqual([1]);
  });

  it('runs through its Temporal Schedule: a failed poll completes the poll workflow, the next one runs', async () => {
    serve('/scheduled', { error: 'down' }, 500);
    const workflowId = await createPollingWorkflow('/scheduled', { dedup_key: 'id' });
    const handle = h.client.schedule.getHandle(triggerScheduleId('polling', workflowId));
    const described = await handle.describe();
    expect(described.action).toMatchObject({ workflowType: 'pollTrigger' });
    expect(described.spec.intervals).toMatchObject([{ every: 3_600_000 }]);

    const fired = async (count: number) => {
      // As long as the test's own timeout: a fire through Temporal can take a while on a busy machine.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const actions = (await handle.describe()).info.recentActions;
        if (actions.length >= count) {
          const id = actions[count - 1]?.action.workflow.workflowId ?? '';
          return h.client.workflow.getHandle(id).result();
        }
        if (Date.now() > deadline) throw new Error('the schedule did not fire');
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await handle.trigger();
    expect(await fired(1)).toMatchObject({ status: 'error', error: { code: 'http_status' } });
    expect(await pollStatus(workflowId)).toMatchObject({ last_status: 'error' });

    serve('/scheduled', [{ id: 7 }, { id: 8 }]);
    await handle.trigger();
    expect(await fired(2)).toMatchObject({ status: 'ok', newItems: 2 });
    expect(byId(await itemsRun(workflowId))).toEqual([7, 8]);
  });

  it('answers 422 for a bad polling config', async () => {
    for (const [config, field] of [
      [{ url: `${baseUrl}/x` }, 'trigger_config.interval_minutes'],
      [{ url: 'ftp://example.com/x', interval_minutes: 5 }, 'trigger_config.url'],
      [{ url: `${baseUrl}/x`, cron: '0 25 * * *' }, 'trigger_config.cron'],
      [{ url: `${baseUrl}/x`, interval_minutes: 0 }, 'trigger_config.interval_minutes'],
    ] as const) {
      const res = await h.request('POST', '/api/v1/workflows', {
        key: org.key,
        body: { name: 'bad', trigger_type: 'polling', trigger_config: config, nodes: [echo] },
      });
      const json = (await res.json()) as any;
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(Object.keys(json.error.fields)).toContain(field);
    }
  });
});
