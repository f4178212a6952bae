import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CountingServer,
  chain,
  createStack,
  createWorkflow,
  httpPost,
  type ServiceProcess,
  type Stack,
  sleep,
  spawnService,
  startCountingServer,
  transform,
} from './support';

// `weft up`'s default layout: one process serves the API and runs the worker (RUN_WORKER), and its
// executions start eagerly on that worker. Killing that process kills both halves at once: the
// executions it accepted must still all finish, each side effect sent under its one key.

let stack: Stack;
let org: { organizationId: string; key: string };
let http: CountingServer;
let combined: ServiceProcess | undefined;

beforeAll(async () => {
  [stack, http] = await Promise.all([createStack(), startCountingServer()]);
  org = await stack.createOrg();
}, 120_000);

afterAll(async () => {
  await combined?.kill();
  await stack?.close();
  http?.server.close();
});

const EVENTS = 120;

describe('the combined API+worker process killed mid-run', () => {
  it('finishes every execution it accepted, each step once, eager starts included', async () => {
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'combined crash',
      trigger_type: 'event',
      trigger_config: { event: 'combined.tick' },
      nodes: [
        httpPost('first', `${http.baseUrl}/combined/first`),
        { id: 'pause', type: 'action.delay', config: { duration: '1s' } },
        transform('done', { first: '{{nodes.first.body.key}}', n: '{{trigger.n}}' }),
      ],
      edges: chain('first', 'pause', 'done'),
    });
    const port = await freePort();
    const start = async () => {
      const processEnv = {
        ...stack.serviceEnv,
        RUN_WORKER: 'true',
        PORT: String(port),
        APP_URL: `http://127.0.0.1:${port}`,
        RATE_LIMIT_PER_KEY: '1000000',
        RATE_LIMIT_PER_ORG: '1000000',
      };
      const child = spawnService('api', processEnv, /listening on/);
      await child.ready;
      return child;
    };
    combined = await start();

    // Publish events four at a time through the process. A request that died with the process got no
    // 202 and counts for nothing: like any sender, the loop sends that event again until accepted.
    const accepted: string[] = [];
    let next = 0;
    let resent = 0;
    const publish = async (n: number): Promise<string[]> => {
      for (;;) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/events`, {
            method: 'POST',
            headers: { 'X-Api-Key': org.key, 'Content-Type': 'application/json' },
            body: JSON.stringify({ event: 'combined.tick', payload: { n } }),
          });
          if (res.status === 202) return ((await res.json()) as { execution_ids: string[] }).execution_ids;
        } catch {
          // the process is down: wait for the next one
        }
        resent++;
        await sleep(100);
      }
    };
    const publishing = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < EVENTS) {
          accepted.push(...(await publish(next++)));
          await sleep(10);
        }
      }),
    );
    // SIGKILL while HTTP calls of the executions are in flight, then start a new process.
    while (accepted.length < EVENTS * 0.4 || http.inFlight() === 0) await sleep(5);
    // A call can still reach the counting server between the decision to kill and the process's death,
    // so the window runs from before the signal to after the exit.
    const killStartedAt = Date.now();
    expect(await combined.kill()).toBe('SIGKILL');
    const killEndedAt = Date.now();
    combined = await start();
    await publishing;
    expect(accepted.length).toBeGreaterThanOrEqual(EVENTS);

    // Every accepted execution ends in success (a task the dead process held is retried elsewhere).
    const deadline = Date.now() + 60_000;
    let statuses: { status: string; count: number }[] = [];
    while (Date.now() < deadline) {
      statuses = await stack.db.admin<{ status: string; count: number }[]>`
        select status, count(*)::int as count from executions
        where id = any(${accepted}::uuid[]) group by status`;
      if (statuses.length === 1 && statuses[0]?.status === 'success') break;
      await sleep(250);
    }
    expect(
      Object.fromEntries(statuses.map((s) => [s.status, s.count])),
      `${resent} requests sent again`,
    ).toEqual({
      success: accepted.length,
    });

    // One step row per node per execution; every call carried its step key, and a key was sent again
    // only for a call that was under way when the process died.
    const rows = await stack.db.admin<{ n: number }[]>`
      select count(*)::int as n from execution_steps where execution_id = any(${accepted}::uuid[])`;
    expect(rows[0]?.n).toBe(accepted.length * 3);
    const calls = new Map<string, number[]>();
    for (const call of http.calls.filter((c) => c.path === '/combined/first')) {
      calls.set(call.key as string, [...(calls.get(call.key as string) ?? []), call.at]);
    }
    for (const id of accepted) {
      const times = calls.get(`${id}:first`) ?? [];
      expect(times.length, `${id}:first was never called`).toBeGreaterThanOrEqual(1);
      if (times.length > 1) {
        const window = `calls at ${times.join(', ')}; kill ${killStartedAt}..${killEndedAt}`;
        expect(times.length, window).toBe(2);
        expect((times[0] as number) <= killEndedAt && (times[1] as number) >= killStartedAt, window).toBe(
          true,
        );
      }
    }
    const done = await stack.db.admin<{ output: { first: string } }[]>`
      select output from execution_steps where execution_id = any(${accepted}::uuid[]) and node_id = 'done'`;
    expect(done.filter((d) => !/^[0-9a-f-]{36}:first$/.test(d.output.first))).toEqual([]);
    expect(workflowId).toBeTruthy();
  }, 120_000);
});
