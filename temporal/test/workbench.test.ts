import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingServer, startCountingServer } from './support';

/**
 * The workbench through the API, on the real engine (DESIGN §15): pins, disabled steps, bounded
 * test runs (run from, run up to, run one step), the mode filter, replay and compare. A local
 * counting HTTP server proves which runs call out and which never do.
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let other: { organizationId: string; key: string };
let server: CountingServer;

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

async function api(method: string, path: string, body?: unknown, key = org.key) {
  const res = await h.request(method, `/api/v1${path}`, { key, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function createWorkflow(nodes: unknown[], edges: unknown[], name = 'workbench') {
  const created = await api('POST', '/workflows', {
    name,
    trigger_type: 'manual',
    status: 'active',
    nodes,
    edges,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; nodes: any[]; edges: any[] };
}

/** Starts a run (execute, test or replay), waits for it to end and returns it. */
async function finished(started: { status: number; body: any }) {
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return h.waitForExecution(org.key, started.body.execution_id);
}

const transform = (id: string, value: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'action.transform',
  config: { assignments: [{ key: 'value', value }] },
  ...extra,
});
const http = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'action.http_request',
  config: { method: 'GET', url: `${server.baseUrl}${path}` },
  ...extra,
});
const edge = (source: string, target: string) => ({ source, target });

beforeAll(async () => {
  server = await startCountingServer(() => 1);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
  other = await h.createOrg('other');
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.server.close();
});

describe('pins and disabled steps', () => {
  it('a pinned HTTP step is not called in a test run, but is in a production run', async () => {
    const pin = { status: 200, body: { pinned: true } };
    const wf = await createWorkflow(
      [http('fetch', '/pinned', { pinned_output: pin }), transform('use', '{{nodes.fetch.body.pinned}}')],
      [edge('fetch', 'use')],
    );
    const test = await finished(await api('POST', `/workflows/${wf.id}/test`, {}));
    expect(test.status).toBe('success');
    expect(test.mode).toBe('test');
    expect(test.trigger).toBe('test');
    expect(step(test, 'fetch')).toMatchObject({ status: 'completed', source: 'pin', output: pin });
    expect(step(test, 'use').output).toEqual({ value: true });
    expect(server.byPath('/pinned')).toBe(0);

    const production = await finished(await api('POST', `/workflows/${wf.id}/execute`, { input: {} }));
    expect(production.mode).toBe('production');
    expect(step(production, 'fetch').source).toBeNull();
    expect(step(production, 'fetch').output.body).toMatchObject({ ok: true, path: '/pinned' });
    expect(server.byPath('/pinned')).toBe(1);
  });

  it('a disabled step passes its input through, in production and test runs', async () => {
    const wf = await createWorkflow(
      [
        transform('first', '{{trigger.n}}'),
        transform('off', 'never computed', { disabled: true }),
        transform('after', '{{nodes.off.value}}'),
      ],
      [edge('first', 'off'), edge('off', 'after')],
    );
    for (const path of [`/workflows/${wf.id}/execute`, `/workflows/${wf.id}/test`]) {
      const run = await finished(await api('POST', path, { input: { n: 7 } }));
      expect(run.status).toBe('success');
      expect(step(run, 'off')).toMatchObject({
        status: 'completed',
        source: 'disabled',
        output: { value: 7 },
      });
      expect(step(run, 'after').output).toEqual({ value: 7 });
    }
  });

  it('pinned_output must be an object (422 naming the field)', async () => {
    const res = await api('POST', '/workflows', {
      name: 'bad pin',
      trigger_type: 'manual',
      nodes: [{ ...transform('a', 'x'), pinned_output: [1, 2] }],
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error.fields)).toContain('nodes.0.pinned_output');
  });
});

describe('bounded test runs', () => {
  let wf: { id: string };
  beforeAll(async () => {
    wf = await createWorkflow(
      [
        transform('a', '{{trigger.n}}'),
        http('call', '/bounded'),
        transform('c', '{{nodes.a.value}}-{{nodes.call.body.path}}'),
        transform('d', '{{nodes.c.value}}!'),
      ],
      [edge('a', 'call'), edge('call', 'c'), edge('c', 'd')],
    );
  });

  it('runs up to a step (stop_after): the later steps are skipped with source `stopped`', async () => {
    const run = await finished(
      await api('POST', `/workflows/${wf.id}/test`, { input: { n: 1 }, stop_after: 'call' }),
    );
    expect(run.status).toBe('success');
    expect(run.test_options).toEqual({ stop_after: 'call' });
    expect(step(run, 'call').status).toBe('completed');
    expect(step(run, 'c')).toMatchObject({ status: 'skipped', source: 'stopped' });
    expect(step(run, 'd')).toMatchObject({ status: 'skipped', source: 'stopped' });
    expect(server.byPath('/bounded')).toBe(1);
  });

  it("runs one step (start_at = stop_after) on the last run's outputs, calling nothing upstream", async () => {
    const last = await finished(await api('POST', `/workflows/${wf.id}/test`, { input: { n: 2 } }));
    expect(step(last, 'd').output).toEqual({ value: '2-/bounded!' });
    const calls = server.byPath('/bounded');
    const one = await finished(
      await api('POST', `/workflows/${wf.id}/test`, { start_at: 'c', stop_after: 'c' }),
    );
    expect(one.status).toBe('success');
    expect(one.test_options).toEqual({ start_at: 'c', stop_after: 'c', source_execution_id: last.id });
    expect(one.trigger_payload).toEqual({ n: 2 });
    expect(step(one, 'a')).toMatchObject({ source: 'recorded', replayed: true, output: { value: 2 } });
    expect(step(one, 'call')).toMatchObject({ source: 'recorded', status: 'completed' });
    expect(step(one, 'c')).toMatchObject({
      source: null,
      status: 'completed',
      output: { value: '2-/bounded' },
    });
    expect(step(one, 'd')).toMatchObject({ status: 'skipped', source: 'stopped' });
    expect(server.byPath('/bounded')).toBe(calls);
  });

  it('runs from a step (start_at): earlier steps recorded, that step and the later ones run', async () => {
    const source = await finished(await api('POST', `/workflows/${wf.id}/test`, { input: { n: 3 } }));
    const calls = server.byPath('/bounded');
    const from = await finished(
      await api('POST', `/workflows/${wf.id}/test`, { start_at: 'c', source_execution_id: source.id }),
    );
    expect(step(from, 'call').source).toBe('recorded');
    expect(step(from, 'c').source).toBeNull();
    expect(step(from, 'd')).toMatchObject({ source: null, output: { value: '3-/bounded!' } });
    expect(server.byPath('/bounded')).toBe(calls);
  });

  it("prefers a step's pin to the last run before start_at", async () => {
    const pinned = await createWorkflow(
      [
        http('call', '/pinned-upstream', { pinned_output: { body: { path: 'pin' } } }),
        transform('c', '{{nodes.call.body.path}}'),
      ],
      [edge('call', 'c')],
    );
    const one = await finished(
      await api('POST', `/workflows/${pinned.id}/test`, { start_at: 'c', stop_after: 'c' }),
    );
    expect(step(one, 'call').source).toBe('pin');
    expect(step(one, 'c').output).toEqual({ value: 'pin' });
    expect(server.byPath('/pinned-upstream')).toBe(0);
  });

  it('answers 422 naming an unknown step, a stop before the start, or a foreign source', async () => {
    const unknown = await api('POST', `/workflows/${wf.id}/test`, { start_at: 'nope' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toContain('"nope"');
    expect(unknown.body.error.fields.start_at[0]).toContain('"nope"');
    const backwards = await api('POST', `/workflows/${wf.id}/test`, { start_at: 'd', stop_after: 'a' });
    expect(backwards.status).toBe(422);
    expect(Object.keys(backwards.body.error.fields)).toEqual(['stop_after']);
    const badId = await api('POST', `/workflows/${wf.id}/test`, { stop_after: 'has spaces' });
    expect(badId.status).toBe(422);
    const foreign = await api('POST', `/workflows/${wf.id}/test`, {
      start_at: 'c',
      source_execution_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.error.fields)).toEqual(['source_execution_id']);
    const otherOrg = await api('POST', `/workflows/${wf.id}/test`, {}, other.key);
    expect(otherOrg.status).toBe(404);
  });

  it('lists test runs as mode test (trigger `test`), filtered by ?mode=', async () => {
    await finished(await api('POST', `/workflows/${wf.id}/execute`, { input: { n: 9 } }));
    const tests = await api('GET', `/executions?workflow_id=${wf.id}&mode=test&per_page=100`);
    const production = await api('GET', `/executions?workflow_id=${wf.id}&mode=production&per_page=100`);
    expect(tests.body.data.length).toBeGreaterThanOrEqual(4);
    expect(tests.body.data.every((e: any) => e.mode === 'test' && e.trigger === 'test')).toBe(true);
    expect(production.body.data).toHaveLength(1);
    expect(production.body.data[0]).toMatchObject({ mode: 'production', trigger: 'api' });
    expect((await api('GET', '/executions?mode=draft')).status).toBe(422);
  });
});

describe('replay and compare', () => {
  it('replays on the edited graph with zero outbound calls; compare shows changed, same, added, removed', async () => {
    const wf = await createWorkflow(
      [
        http('fetch', '/order'),
        transform('total', '{{nodes.fetch.body.path}} v1'),
        {
          ...http('notify', '/notify'),
          config: { method: 'POST', url: `${server.baseUrl}/notify`, body: { t: '{{nodes.total.value}}' } },
        },
        transform('label', 'fixed'),
        transform('old', 'to be removed'),
      ],
      [edge('fetch', 'total'), edge('total', 'notify'), edge('fetch', 'label'), edge('fetch', 'old')],
    );
    const original = await finished(
      await api('POST', `/workflows/${wf.id}/execute`, { input: { order: 42 } }),
    );
    expect(original.status).toBe('success');
    const callsByOriginal = server.byPath('/order') + server.byPath('/notify');
    expect(callsByOriginal).toBe(2);

    // The edit: total computed differently, `old` removed, a computed step and an HTTP step added.
    const nodes = [
      ...wf.nodes.filter((n) => n.id !== 'old' && n.id !== 'total'),
      transform('total', '{{nodes.fetch.body.path}} v2 for {{trigger.order}}'),
      transform('extra', 'new'),
      { ...http('ping', '/ping'), on_failure: 'continue' },
    ];
    const edges = [
      edge('fetch', 'total'),
      edge('total', 'notify'),
      edge('fetch', 'label'),
      edge('label', 'extra'),
      edge('label', 'ping'),
    ];
    const updated = await api('PUT', `/workflows/${wf.id}`, {
      name: 'workbench',
      trigger_type: 'manual',
      status: 'active',
      nodes,
      edges,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);

    const replay = await finished(await api('POST', `/executions/${original.id}/replay`, {}));
    expect(replay).toMatchObject({ mode: 'test', trigger: 'replay', replay_of: original.id });
    expect(replay.trigger_payload).toEqual({ order: 42 });
    expect(server.byPath('/order') + server.byPath('/notify') + server.byPath('/ping')).toBe(callsByOriginal);
    expect(step(replay, 'fetch')).toMatchObject({ replayed: true, source: 'recorded' });
    expect(step(replay, 'fetch').output).toEqual(step(original, 'fetch').output);
    expect(step(replay, 'notify')).toMatchObject({ replayed: true, status: 'completed' });
    expect(step(replay, 'total')).toMatchObject({ replayed: false, output: { value: '/order v2 for 42' } });
    expect(step(replay, 'ping')).toMatchObject({ status: 'failed', error: { code: 'replay_no_recording' } });
    expect(replay.status).toBe('partial');

    const compared = await api('GET', `/executions/${original.id}/compare/${replay.id}`);
    expect(compared.status, JSON.stringify(compared.body)).toBe(200);
    const change = Object.fromEntries(compared.body.nodes.map((n: any) => [n.node_id, n.change]));
    expect(change).toEqual({
      fetch: 'same',
      total: 'changed',
      notify: 'same',
      label: 'same',
      extra: 'added',
      ping: 'added',
      old: 'removed',
    });
    const total = compared.body.nodes.find((n: any) => n.node_id === 'total');
    expect(total).toMatchObject({ before: { value: '/order v1' }, after: { value: '/order v2 for 42' } });
    const old = compared.body.nodes.find((n: any) => n.node_id === 'old');
    expect(old).toMatchObject({ before: { value: 'to be removed' }, after: null });

    // The replay is listed as a test run, and as a replay of the original.
    const replays = await api('GET', `/executions?replay_of=${original.id}`);
    expect(replays.body.data.map((e: any) => e.id)).toEqual([replay.id]);

    // Replaying the original version: every node is the same again.
    const onV1 = await finished(await api('POST', `/executions/${original.id}/replay`, { version: 1 }));
    expect(onV1.workflow_version).toBe(1);
    const again = await api('GET', `/executions/${original.id}/compare/${onV1.id}`);
    expect(again.body.nodes.every((n: any) => n.change === 'same')).toBe(true);
    expect(server.byPath('/order') + server.byPath('/notify')).toBe(callsByOriginal);
  });

  it("refuses another organization's execution (404), an unknown version and unrelated runs (422)", async () => {
    const wf = await createWorkflow([transform('a', 'x')], [], 'first');
    const run = await finished(await api('POST', `/workflows/${wf.id}/execute`, {}));
    expect((await api('POST', `/executions/${run.id}/replay`, {}, other.key)).status).toBe(404);
    expect((await api('GET', `/executions/${run.id}/compare/${run.id}`, undefined, other.key)).status).toBe(
      404,
    );
    const version = await api('POST', `/executions/${run.id}/replay`, { version: 99 });
    expect(version.status).toBe(422);
    expect(Object.keys(version.body.error.fields)).toEqual(['version']);

    const second = await createWorkflow([transform('a', 'x')], [], 'second');
    const otherRun = await finished(await api('POST', `/workflows/${second.id}/execute`, {}));
    const unrelated = await api('GET', `/executions/${run.id}/compare/${otherRun.id}`);
    expect(unrelated.status).toBe(422);
    expect(Object.keys(unrelated.body.error.fields)).toEqual(['other_id']);
    expect((await api('GET', `/executions/${run.id}/compare/not-a-uuid`)).status).toBe(404);
  });
});

describe('replay inside loops', () => {
  it('replays each iteration of a side effect from its own recording', async () => {
    const wf = await createWorkflow(
      [
        { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}' } },
        http('get', '/item/{{loop.item}}'),
        transform('after', '{{nodes.each.count}}'),
      ],
      [
        { source: 'each', target: 'get', source_handle: 'each' },
        { source: 'each', target: 'after', source_handle: 'done' },
      ],
    );
    const original = await finished(
      await api('POST', `/workflows/${wf.id}/execute`, { input: { items: ['a', 'b', 'c'] } }),
    );
    expect(original.status).toBe('success');
    const calls = server.calls.filter((c) => c.path.startsWith('/item/')).length;
    expect(calls).toBe(3);
    const replay = await finished(await api('POST', `/executions/${original.id}/replay`, {}));
    expect(replay.status).toBe('success');
    expect(server.calls.filter((c) => c.path.startsWith('/item/')).length).toBe(calls);
    const gets = replay.steps.filter((s: any) => s.node_id === 'get');
    expect(gets.map((s: any) => [s.iteration, s.replayed, s.output.body.path])).toEqual([
      [0, true, '/item/a'],
      [1, true, '/item/b'],
      [2, true, '/item/c'],
    ]);
    const compared = await api('GET', `/executions/${original.id}/compare/${replay.id}`);
    expect(compared.body.nodes.every((n: any) => n.change === 'same')).toBe(true);
    expect(compared.body.nodes.filter((n: any) => n.node_id === 'get')).toHaveLength(3);
  });
});

describe('quiet test runs', () => {
  it('records outbound webhook deliveries for production runs only, never for test runs or replays', async () => {
    const quiet = await h.createOrg('quiet');
    const call = (method: string, path: string, body?: unknown) => api(method, path, body, quiet.key);
    const hook = await call('POST', '/webhooks', {
      url: `${server.baseUrl}/hook`,
      events: ['execution.completed'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const created = await call('POST', '/workflows', {
      name: 'announced',
      trigger_type: 'manual',
      status: 'active',
      nodes: [transform('a', 'x')],
    });
    const deliveries = async () =>
      (
        await h.db
          .admin`select count(*)::int as n from webhook_deliveries where organization_id = ${quiet.organizationId}`
      )[0]?.n;
    const run = async (path: string, body: unknown = {}) => {
      const started = await call('POST', path, body);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      return h.waitForExecution(quiet.key, started.body.execution_id);
    };
    const production = await run(`/workflows/${created.body.id}/execute`);
    expect(production.status).toBe('success');
    expect(await deliveries()).toBe(1);
    expect((await run(`/workflows/${created.body.id}/test`)).status).toBe('success');
    expect((await run(`/executions/${production.id}/replay`)).status).toBe('success');
    // Deliveries are recorded in the transaction that saves the final status: none were.
    expect(await deliveries()).toBe(1);
  });
});
