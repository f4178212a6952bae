import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CountingServer,
  chain,
  createStack,
  createWorkflow,
  execute,
  httpPost,
  type ServiceProcess,
  type Stack,
  sleep,
  spawnService,
  startCountingServer,
  transform,
  waitUntilIdle,
} from './support';

let stack: Stack;
let org: { organizationId: string; key: string };
let http: CountingServer;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  [stack, http] = await Promise.all([createStack(), startCountingServer()]);
  org = await stack.createOrg();
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await stack?.close();
  http?.server.close();
});

const EXECUTIONS = Number(process.env.WEFT_DURABILITY_EXECUTIONS ?? 200);
const expectedDone = (id: string) => ({ first: `${id}:first`, second: `${id}:second` });
const isEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('a worker killed mid-run', () => {
  it(`finishes all ${EXECUTIONS} executions, never repeating a completed step`, async () => {
    const t0 = Date.now();
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'crash me',
      nodes: [
        httpPost('first', `${http.baseUrl}/crash/first`),
        { id: 'pause', type: 'action.delay', config: { duration: '1s' } },
        httpPost('second', `${http.baseUrl}/crash/second`),
        transform('done', { first: '{{nodes.first.body.key}}', second: '{{nodes.second.body.key}}' }),
      ],
      edges: chain('first', 'pause', 'second', 'done'),
    });
    worker = await stack.startWorker();
    const workerUp = Date.now() - t0;

    // Start the executions at a steady pace, four at a time, while the worker runs them.
    const ids: string[] = [];
    let next = 0;
    const starting = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < EXECUTIONS) {
          const n = next++;
          ids.push(await execute(stack, org.key, workflowId, { n }));
          await sleep(10);
        }
      }),
    );

    // Kill the worker (SIGKILL) while requests are in flight, twice, and start a new one each time.
    const kills: number[] = [];
    const restarts: number[] = [];
    for (const threshold of [EXECUTIONS * 0.3, EXECUTIONS * 0.7]) {
      while (ids.length < threshold || http.inFlight() === 0) await sleep(5);
      await worker.kill();
      kills.push(Date.now());
      const started = Date.now();
      worker = await stack.startWorker();
      restarts.push(Date.now() - started);
    }
    await starting;
    const allStarted = Date.now() - t0;

    // Wait for every execution to end.
    let statuses: { status: string; count: number }[] = [];
    // Recovery from a crash must not wait for an activity's start-to-close timeout (5 minutes). The
    // deadline is the test's own timeout less room for the report below, not a tighter budget.
    const deadline = t0 + 105_000;
    while (Date.now() < deadline) {
      statuses = await stack.db.admin<{ status: string; count: number }[]>`
          select status, count(*)::int as count from executions
          where workflow_id = ${workflowId} group by status`;
      const done = statuses
        .filter((s) => ['success', 'partial', 'failed', 'cancelled'].includes(s.status))
        .reduce((a, s) => a + s.count, 0);
      if (done === EXECUTIONS) break;
      await sleep(250);
    }
    const allDone = Date.now() - t0;
    const timings = `worker up in ${workerUp} ms, restarts took ${restarts.join(', ')} ms, all started at ${allStarted} ms, waited until ${allDone} ms`;
    console.log(`[durability] ${timings}`);
    // On failure, say where the unfinished executions hang (Temporal's view of their activities).
    const stuck = await stack.db.admin<{ id: string }[]>`
        select id from executions where workflow_id = ${workflowId} and status <> 'success' limit 3`;
    const where = await Promise.all(
      stuck.map(async ({ id }) => {
        const { raw } = await stack.client.workflow.getHandle(`exec-${id}`).describe();
        const activities = (raw.pendingActivities ?? []).map((a) => {
          const started = Number(a.lastStartedTime?.seconds ?? 0) * 1000 - t0;
          const timeout = a.activityOptions?.startToCloseTimeout?.seconds ?? '?';
          const heartbeat = a.activityOptions?.heartbeatTimeout?.seconds ?? 0;
          return `${a.activityType?.name} started at ${started} ms, not done (attempt ${a.attempt}; start-to-close ${timeout} s, heartbeat timeout ${heartbeat} s)`;
        });
        return `exec-${id}: ${activities.join('; ') || 'no pending activity'}`;
      }),
    );
    expect(
      Object.fromEntries(statuses.map((s) => [s.status, s.count])),
      `workers killed at ${kills.map((k) => k - t0).join(', ')} ms; ${where.join(' | ')}`,
    ).toEqual({ success: EXECUTIONS });

    // Every call carried its step's key; a key was only ever re-sent for a call under way at a kill.
    const idSet = new Set(ids);
    const keyRe = /^([0-9a-f-]{36}):(first|second)$/;
    const seen = new Map<string, number[]>();
    for (const call of http.calls.filter((c) => c.path.startsWith('/crash/'))) {
      const m = call.key?.match(keyRe);
      expect(m, `call to ${call.path} with key ${call.key}`).toBeTruthy();
      expect(idSet.has(m?.[1] ?? '')).toBe(true);
      expect(call.path).toBe(`/crash/${m?.[2]}`);
      seen.set(call.key as string, [...(seen.get(call.key as string) ?? []), call.at]);
    }
    let duplicates = 0;
    for (const id of ids) {
      for (const node of ['first', 'second']) {
        const times = seen.get(`${id}:${node}`) ?? [];
        expect(times.length, `${id}:${node} was never called`).toBeGreaterThanOrEqual(1);
        duplicates += times.length - 1;
        // A repeat is only legitimate for a delivery under way when a worker died (at-least-once):
        // between any two calls with one key, a worker was killed.
        for (let i = 1; i < times.length; i++) {
          const [before, after] = [times[i - 1] as number, times[i] as number];
          expect(
            kills.some((k) => before < k && k < after),
            `${id}:${node} was called again at ${after - t0} ms after ${before - t0} ms with no kill between`,
          ).toBe(true);
        }
      }
    }

    // Each execution has exactly one step row per node, completed, first attempt.
    const steps = await stack.db.admin<{ node_id: string; status: string; attempt: number; n: number }[]>`
        select s.node_id, s.status, s.attempt, count(*)::int as n
        from execution_steps s join executions e on e.id = s.execution_id
        where e.workflow_id = ${workflowId}
        group by s.node_id, s.status, s.attempt order by s.node_id`;
    expect(steps).toEqual(
      ['done', 'first', 'pause', 'second'].map((node_id) => ({
        node_id,
        status: 'completed',
        attempt: 1,
        n: EXECUTIONS,
      })),
    );
    const perExecution = await stack.db.admin<{ n: number }[]>`
        select count(*)::int as n from execution_steps s join executions e on e.id = s.execution_id
        where e.workflow_id = ${workflowId} group by s.execution_id having count(*) <> 4`;
    expect(perExecution).toEqual([]);

    // Replayed on new workers, every execution still hands each node its own recorded response.
    const outputs = await stack.db.admin<{ execution_id: string; output: unknown }[]>`
        select s.execution_id, s.output from execution_steps s join executions e on e.id = s.execution_id
        where e.workflow_id = ${workflowId} and s.node_id = 'done'`;
    expect(outputs.filter((o) => !isEqual(o.output, expectedDone(o.execution_id)))).toEqual([]);

    const calls = http.calls.filter((c) => c.path.startsWith('/crash/')).length;
    console.log(
      `[durability] ${EXECUTIONS} executions, ${kills.length} SIGKILLs: ${calls} HTTP calls for ` +
        `${EXECUTIONS * 2} side-effect steps, ${duplicates} duplicate deliveries (same Idempotency-Key)`,
    );
  }, 120_000);
});

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

describe('a worker killed after a local call answered, before its workflow task completed', () => {
  it('does not make the answered call again: the re-run task finds its recorded answer', async () => {
    worker ??= await stack.startWorker();
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'lost task',
      nodes: [
        httpPost('answered', `${http.baseUrl}/lost-task/answered`),
        httpPost('under-way', `${http.baseUrl}/lost-task/under-way`),
        transform('done', { answered: '{{nodes.answered.body.key}}' }),
      ],
      edges: chain('answered', 'under-way', 'done'),
    });
    const id = await execute(stack, org.key, workflowId);
    // Both calls are local activities in one workflow task: the first one's answer is not in
    // Temporal's history yet while the second one waits on the server. Kill the worker then.
    while (http.byPath('/lost-task/under-way') === 0) await sleep(2);
    await worker.kill();
    worker = await stack.startWorker();
    // The dead worker's task times out (10 s) before the new worker gets it.
    const done = await stack.waitForExecution(org.key, id, (e) => e.status === 'success', 45_000);
    expect(step(done, 'done').output).toEqual({ answered: `${id}:answered` });
    expect(http.byPath('/lost-task/answered')).toBe(1);
    // The call under way when its worker died is made again (at least once).
    expect(http.byPath('/lost-task/under-way')).toBe(2);
    const history = await stack.client.workflow.getHandle(`exec-${id}`).fetchHistory();
    const types = (history.events ?? []).flatMap((e) =>
      Object.keys(e).filter((k) => k.endsWith('EventAttributes') && e[k as keyof typeof e]),
    );
    // The first task was lost, and no call was an activity task (both ran locally).
    expect(types).toContain('workflowTaskTimedOutEventAttributes');
    expect(types).not.toContain('activityTaskScheduledEventAttributes');
  }, 60_000);
});

describe('retry after a worker restart', () => {
  it('resumes a failed execution in place on a new worker; the step before the failure ran once', async () => {
    worker ??= await stack.startWorker();
    http.failing.add('/retry/flaky');
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'retry after restart',
      nodes: [
        httpPost('before', `${http.baseUrl}/retry/before`),
        httpPost('flaky', `${http.baseUrl}/retry/flaky`, { on_failure: 'abort' }),
        transform('after', { from_before: '{{nodes.before.body.key}}' }),
      ],
      edges: chain('before', 'flaky', 'after'),
    });
    // A is retried on the new worker; B is retried while no worker runs at all.
    const [a, b] = [await execute(stack, org.key, workflowId), await execute(stack, org.key, workflowId)];
    for (const id of [a, b]) {
      const failed = await stack.waitForExecution(org.key, id);
      expect(failed.status).toBe('failed');
      expect(failed.attempt).toBe(1);
      expect(step(failed, 'flaky').error.code).toBe('http_status');
      // Let the failure settle (error.critical published, workflow parked): this test is about the
      // restart; the retry racing the failure's own side effects is the next test's subject.
      await waitUntilIdle(stack.client, id);
    }

    await worker.kill();
    worker = undefined;
    http.failing.delete('/retry/flaky');
    const retryB = await stack.request('POST', `/api/v1/executions/${b}/retry`, { key: org.key });
    expect(retryB.status).toBe(202);
    worker = await stack.startWorker();
    const retryA = await stack.request('POST', `/api/v1/executions/${a}/retry`, { key: org.key });
    expect(retryA.status).toBe(202);

    for (const id of [a, b]) {
      // A workflow cached by the killed worker gets its next task only after the sticky queue's
      // schedule-to-start timeout (10 s), and the new worker bundles the workflows first (~5 s).
      const done = await stack.waitForExecution(org.key, id, (e) => e.status === 'success', 45_000);
      expect(done.attempt).toBe(2);
      expect(step(done, 'before')).toMatchObject({ status: 'completed', attempt: 1 });
      expect(step(done, 'flaky')).toMatchObject({ status: 'completed', attempt: 2 });
      expect(step(done, 'after').output).toEqual({ from_before: `${id}:before` });
      const keys = http.byKey();
      expect(keys.get(`${id}:before`)).toBe(1);
      // The failed call and the successful one, with the same key.
      expect(keys.get(`${id}:flaky`)).toBe(2);
    }
    expect(http.byPath('/retry/before')).toBe(2);
  }, 90_000);
});

describe('retry requested the moment an execution shows failed', () => {
  it('is never lost: every execution resumes and succeeds', async () => {
    worker ??= await stack.startWorker();
    http.failingOnce.add('/race/flaky');
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'retry race',
      nodes: [
        httpPost('flaky', `${http.baseUrl}/race/flaky`, { on_failure: 'abort' }),
        transform('after', { ok: 'yes' }),
      ],
      edges: chain('flaky', 'after'),
    });
    const ids = await Promise.all(Array.from({ length: 20 }, () => execute(stack, org.key, workflowId)));

    // What a client polling GET /executions/{id} and retrying at once does, only faster.
    const retried = new Map<string, Promise<number>>();
    const deadline = Date.now() + 30_000;
    while (retried.size < ids.length && Date.now() < deadline) {
      const rows = await stack.db.admin<{ id: string }[]>`
          select id from executions where id = any(${ids}::uuid[]) and status = 'failed'`;
      for (const { id } of rows) {
        if (retried.has(id)) continue;
        retried.set(
          id,
          Promise.resolve(stack.request('POST', `/api/v1/executions/${id}/retry`, { key: org.key })).then(
            (r) => r.status,
          ),
        );
      }
      await sleep(5);
    }
    expect(await Promise.all(retried.values())).toEqual(ids.map(() => 202));

    // A lost retry never succeeds at all: the bound only has to be generous.
    const settled = await Promise.all(
      ids.map((id) =>
        stack
          .waitForExecution(org.key, id, (e) => e.status === 'success', 45_000)
          .then(() => 'success')
          .catch((error: Error) => error.message.split('\n').slice(0, 2).join(' ')),
      ),
    );
    const lost = settled.filter((s) => s !== 'success');
    expect(lost, `${lost.length} of ${ids.length} retries were lost`).toEqual([]);
  }, 90_000);
});

describe('the API process dying right after it answered', () => {
  it('loses no execution an accepted event triggered, nor the event a waiting execution awaited', async () => {
    worker ??= await stack.startWorker();
    // 20 workflows on one event: above the direct-start limit, so the API hands them to a dispatcher.
    const triggered = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createWorkflow(stack, org.key, {
          name: `on ping ${i}`,
          trigger_type: 'event',
          trigger_config: { event: 'durable.ping' },
          nodes: [
            httpPost('call', `${http.baseUrl}/event/${i}`),
            transform('t', { seq: '{{trigger.seq}}', key: '{{nodes.call.body.key}}' }),
          ],
          edges: chain('call', 't'),
        }),
      ),
    );
    // Two on another event: started directly by the API.
    for (const i of [0, 1]) {
      await createWorkflow(stack, org.key, {
        name: `on pong ${i}`,
        trigger_type: 'event',
        trigger_config: { event: 'durable.pong' },
        nodes: [transform('t', { seq: '{{trigger.seq}}' })],
      });
    }
    const waiterWorkflow = await createWorkflow(stack, org.key, {
      name: 'waits for ping',
      nodes: [
        { id: 'wait', type: 'action.wait_for_event', config: { event: 'durable.ping', timeout: '1h' } },
        transform('got', { seq: '{{nodes.wait.event.seq}}' }),
      ],
      edges: [{ source: 'wait', target: 'got', source_handle: 'received' }],
    });
    const waiter = await execute(stack, org.key, waiterWorkflow);
    await stack.waitForExecution(org.key, waiter, (e) => e.status === 'waiting');

    const publishThenDie = async (event: string, seq: number) => {
      const port = await freePort();
      const api = spawnService('api', {
        ...stack.serviceEnv,
        PORT: String(port),
        APP_URL: `http://127.0.0.1:${port}`,
        // Request counts are kept in the database, shared with the in-process API this file polls.
        RATE_LIMIT_PER_KEY: '1000000',
        RATE_LIMIT_PER_ORG: '1000000',
      });
      await api.ready;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/events`, {
        method: 'POST',
        headers: { 'X-Api-Key': org.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ event, payload: { seq } }),
      });
      const body = (await res.json()) as any;
      // SIGKILL the moment the answer is in: nothing the API does after its 202 may be needed.
      const how = await api.kill();
      expect(how).toBe('SIGKILL');
      expect(res.status, JSON.stringify(body)).toBe(202);
      return body as { workflows_triggered: number; execution_ids: string[] };
    };

    const ping = await publishThenDie('durable.ping', 7);
    expect(ping.workflows_triggered).toBe(20);
    const pong = await publishThenDie('durable.pong', 8);
    expect(pong.workflows_triggered).toBe(2);

    const runs = await Promise.all(
      [...ping.execution_ids, ...pong.execution_ids].map((id) => stack.waitForExecution(org.key, id)),
    );
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'success'));
    expect(new Set(runs.slice(0, 20).map((r) => r.workflow_id))).toEqual(new Set(triggered));
    expect(runs.map((r) => step(r, 't').output.seq)).toEqual([...Array(20).fill(7), 8, 8]);
    const keys = http.byKey();
    for (const id of ping.execution_ids) expect(keys.get(`${id}:call`)).toBe(1);

    const resumed = await stack.waitForExecution(org.key, waiter);
    expect(resumed.status).toBe('success');
    expect(step(resumed, 'got').output).toEqual({ seq: 7 });
  }, 60_000);
});
