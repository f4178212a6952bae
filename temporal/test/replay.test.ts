/**
 * Determinism: committed histories of representative executions replay against today's workflow
 * code. A change to the interpreter that would break executions already running in production
 * (different commands, or the same commands in another order) fails here.
 *
 * Recording (on a real Temporal dev server, with the worker process of services/worker):
 *   WEFT_RECORD_HISTORIES=1 node_modules/.bin/vitest run temporal/test/replay.test.ts
 * rewrites temporal/test/histories/*.json. Re-record only for an intended, versioned change of the
 * interpreter (with `patched()` for running executions), never to make this test pass.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON, type JSONPayload, JSONToPayload } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, type InjectedSinks, Worker } from '@temporalio/worker';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { createMetricsSinks } from '@weft/temporal/sinks';
import { workflowBundle } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import type { ReplayCheckSinks } from './replay-interceptors';
import {
  chain,
  createStack,
  createWorkflow,
  execute,
  httpPost,
  ROOT,
  type Stack,
  startCountingServer,
  transform,
  waitUntilIdle,
} from './support';

const HISTORIES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'histories');
const RECORD = process.env.WEFT_RECORD_HISTORIES === '1';

/**
 * The payload key the fixtures were recorded with: the interpreter reads its (encrypted) inputs,
 * so replay must decrypt them. A test-only secret, committed on purpose; never a real APP_KEY.
 */
const REPLAY_APP_KEY = Buffer.from('sE8UsD91HZTpdvgRvVqKYbnIj4wZ7sX2M/Y7dgOQuVs=', 'base64');

/** Every fixture the recording writes; the replay test insists they are all committed. */
const SCENARIOS = [
  'branch',
  'loop-sequential',
  'loop-parallel',
  'delay',
  'wait-for-event',
  'abort-then-retry',
  'parallel-merge-continue',
  'child-workflow.parent',
  'child-workflow.child',
  'cancel',
];

/**
 * Histories of interpreters older than today's recording can produce, kept as they were recorded:
 * `legacy-local-short-calls.*` come from stop 28's code (c700536), which ran short HTTP requests
 * and chat sends wholly as local activities, retries included (marker `local-short-calls`). An
 * execution paused then (a delay, a failure parked for its retry) resumes on today's worker.
 */
const LEGACY = ['legacy-local-short-calls.delay', 'legacy-local-short-calls.abort-then-retry'];
const FIXTURES = [...SCENARIOS, ...LEGACY];

// Recording (when asked) comes first, so that the replay below reads the fresh fixtures.
describe.runIf(RECORD)('recording histories (WEFT_RECORD_HISTORIES=1)', () => {
  it('runs the representative executions and writes their histories', async () => {
    const [stack, http] = await Promise.all([createStack({ appKey: REPLAY_APP_KEY }), startCountingServer()]);
    try {
      await stack.startWorker();
      const { key } = await stack.createOrg();
      mkdirSync(HISTORIES, { recursive: true });
      await recordAll(stack, key, http);
    } finally {
      await stack.close();
      http.server.close();
    }
  }, 120_000);
});

const codec = createEncryptionCodec(REPLAY_APP_KEY);

function fixtures() {
  const files = readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return files.map((file) => ({
    workflowId: file,
    // The proto3 JSON form (as `temporal workflow show --output json`); the worker parses it.
    history: JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')),
  }));
}

const short = (error: Error) => `${error.name}: ${error.message}`.slice(0, 600);

/** How each recorded execution's history must end: a fixture cut short replays nothing after the cut. */
const CLOSED_AS: Record<string, string> = Object.fromEntries(
  FIXTURES.map((name) => [
    name,
    name === 'cancel' ? 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED' : 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
  ]),
);

describe('replaying committed histories', () => {
  it('has a fixture for every representative execution', () => {
    expect(fixtures().map((f) => f.workflowId.replace(/\.json$/, ''))).toEqual([...FIXTURES].sort());
  });

  it('holds whole histories: each starts the workflow and ends as its execution ended', () => {
    for (const { workflowId, history } of fixtures()) {
      const events = history.events as { eventType: string }[];
      const name = workflowId.replace(/\.json$/, '');
      expect(events[0]?.eventType, name).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
      expect(events.at(-1)?.eventType, name).toBe(CLOSED_AS[name]);
      // More than a start and a close: the interpreter ran workflow tasks in between.
      expect(
        events.filter((e) => e.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED').length,
        name,
      ).toBeGreaterThan(0);
    }
  });

  it('replays every fixture without a determinism error', async () => {
    const histories = fixtures();
    const results: { fixture: string; error?: string }[] = [];
    for await (const result of Worker.runReplayHistories(
      // The worker's sinks, as in production (a replay worker never calls them).
      {
        workflowBundle: await workflowBundle(),
        dataConverter: { payloadCodecs: [codec] },
        sinks: createMetricsSinks(),
      },
      histories,
    )) {
      results.push({ fixture: result.workflowId, ...(result.error ? { error: short(result.error) } : {}) });
    }
    expect(results.filter((r) => r.error)).toEqual([]);
    // One result per fixture: an empty or partly read directory cannot pass as "no errors".
    expect(results.map((r) => r.fixture).sort()).toEqual(FIXTURES.map((name) => `${name}.json`).sort());
  }, 60_000);

  // Temporal checks each command's type and sequence number, not its input: replaying again with an
  // interceptor that reports what the code schedules shows that every activity and child workflow
  // gets the same input as recorded, so no node can be handed another node's recorded result.
  it('schedules every activity and child workflow with the inputs recorded in the history', async () => {
    const histories = fixtures();
    const bundle = await bundleWorkflowCode({
      workflowsPath: path.join(ROOT, 'temporal', 'workflows', 'index.ts'),
      workflowInterceptorModules: [fileURLToPath(new URL('./replay-interceptors.ts', import.meta.url))],
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
    });
    const scheduled = new Map<string, { kind: string; name: string; args: unknown }[]>();
    const sinks: InjectedSinks<ReplayCheckSinks> = {
      replayCheck: {
        scheduled: {
          fn: (info, kind, name, args) => {
            const list = scheduled.get(info.runId) ?? [];
            list.push({ kind, name, args: JSON.parse(JSON.stringify(args)) });
            scheduled.set(info.runId, list);
          },
          callDuringReplay: true,
        },
      },
    };
    const runIds = new Map<string, string>();
    for await (const result of Worker.runReplayHistories(
      {
        workflowBundle: bundle,
        dataConverter: { payloadCodecs: [codec] },
        sinks: { ...sinks, ...createMetricsSinks() },
      },
      histories,
    )) {
      if (result.error) throw result.error;
      runIds.set(result.workflowId, result.runId);
    }
    let compared = 0;
    for (const { workflowId: fixture, history } of histories) {
      const recorded = await recordedCommands(history);
      expect(scheduled.get(runIds.get(fixture) ?? '') ?? [], fixture).toEqual(recorded);
      compared += recorded.length;
    }
    // The sink saw something at all (the branch fixture has only pure nodes and local activities).
    expect(compared).toBeGreaterThan(10);
  }, 60_000);
});

/** The activities and child workflows a history recorded, in order, with their decoded inputs. */
async function recordedCommands(history: { events: Record<string, any>[] }) {
  const decode = async (payloads: JSONPayload[] = []) =>
    (await codec.decode(payloads.map(JSONToPayload))).map((p) => defaultPayloadConverter.fromPayload(p));
  const commands: { kind: string; name: string; args: unknown }[] = [];
  for (const event of history.events) {
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      commands.push({
        kind: 'activity',
        name: activity.activityType.name,
        args: await decode(activity.input?.payloads),
      });
    }
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child) {
      commands.push({
        kind: 'child',
        name: child.workflowType.name,
        args: await decode(child.input?.payloads),
      });
    }
  }
  return commands;
}

async function recordAll(stack: Stack, key: string, http: Awaited<ReturnType<typeof startCountingServer>>) {
  const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);
  const save = async (name: string, executionId: string) => {
    const handle = stack.client.workflow.getHandle(`exec-${executionId}`);
    // Only a closed workflow's history is complete.
    await handle.result().catch(() => undefined);
    expect((await handle.describe()).status.name, name).toBe(name === 'cancel' ? 'CANCELLED' : 'COMPLETED');
    const history = await handle.fetchHistory();
    writeFileSync(
      path.join(HISTORIES, `${name}.json`),
      `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`,
    );
  };
  const run = async (
    name: string,
    workflow: Record<string, unknown>,
    input: Record<string, unknown> = {},
    expected = 'success',
  ) => {
    const workflowId = await createWorkflow(stack, key, { name, ...workflow });
    const executionId = await execute(stack, key, workflowId, input);
    const done = await stack.waitForExecution(key, executionId);
    expect(done.status, `${name}: ${JSON.stringify(done.steps)}`).toBe(expected);
    return { executionId, done };
  };

  const recordings: Promise<void>[] = [];

  // A 4-node branch: transform → condition → one branch taken, one skipped.
  recordings.push(
    run(
      'branch',
      {
        nodes: [
          transform('prepare', { total: '{{trigger.total}}', customer: '{{trigger.name | upper}}' }),
          {
            id: 'check',
            type: 'action.condition',
            config: { conditions: [{ left: '{{nodes.prepare.total}}', operator: 'gt', right: '100' }] },
          },
          transform('big', { tier: 'big for {{nodes.prepare.customer}}' }),
          transform('small', { tier: 'small' }),
        ],
        edges: [
          { source: 'prepare', target: 'check' },
          { source: 'check', target: 'big', source_handle: 'true' },
          { source: 'check', target: 'small', source_handle: 'false' },
        ],
      },
      { total: 250, name: 'ada' },
    ).then(({ executionId }) => save('branch', executionId)),
  );

  // Loops whose body calls an activity per item, sequentially and in parallel lanes.
  for (const mode of ['sequential', 'parallel'] as const) {
    recordings.push(
      run(
        `loop-${mode}`,
        {
          nodes: [
            {
              id: 'each',
              type: 'action.loop',
              config: { items: '{{trigger.items}}', mode, concurrency: 2 },
            },
            httpPost('call', `${http.baseUrl}/loop/${mode}`),
            transform('label', { text: '{{loop.index}}/{{loop.count}} {{loop.item.sku}}' }),
            transform('after', { total: '{{nodes.each.count}}' }),
          ],
          edges: [
            { source: 'each', target: 'call', source_handle: 'each' },
            { source: 'call', target: 'label' },
            { source: 'each', target: 'after', source_handle: 'done' },
          ],
        },
        { items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }, { sku: 'd' }] },
      ).then(({ executionId }) => save(`loop-${mode}`, executionId)),
    );
  }

  // A durable timer between two side effects.
  recordings.push(
    run('delay', {
      nodes: [
        httpPost('before', `${http.baseUrl}/delay/before`),
        { id: 'nap', type: 'action.delay', config: { duration: '1s' } },
        transform('after', { woke: '{{nodes.nap.resumed_at}}' }),
      ],
      edges: chain('before', 'nap', 'after'),
    }).then(({ executionId }) => save('delay', executionId)),
  );

  // wait_for_event, resumed by a published event (a non-matching one first).
  recordings.push(
    (async () => {
      const workflowId = await createWorkflow(stack, key, {
        name: 'wait-for-event',
        nodes: [
          {
            id: 'wait',
            type: 'action.wait_for_event',
            config: {
              event: 'replay.paid',
              match: { field: 'order_id', equals: '{{trigger.order_id}}' },
              timeout: '1h',
            },
          },
          transform('paid', { amount: '{{nodes.wait.event.amount}}' }),
        ],
        edges: [{ source: 'wait', target: 'paid', source_handle: 'received' }],
      });
      const executionId = await execute(stack, key, workflowId, { order_id: 'R-1' });
      await stack.waitForExecution(key, executionId, (e) => e.status === 'waiting');
      for (const payload of [
        { order_id: 'other', amount: 1 },
        { order_id: 'R-1', amount: 42 },
      ]) {
        const res = await stack.request('POST', '/api/v1/events', {
          key,
          body: { event: 'replay.paid', payload },
        });
        expect(res.status).toBe(202);
      }
      const done = await stack.waitForExecution(key, executionId);
      expect(done.status).toBe('success');
      expect(step(done, 'paid').output).toEqual({ amount: 42 });
      await save('wait-for-event', executionId);
    })(),
  );

  // A failure with on_failure abort (parks, fires error.critical), then a retry in place.
  recordings.push(
    (async () => {
      http.failing.add('/abort/flaky');
      const { executionId, done: failed } = await run(
        'abort-then-retry',
        {
          nodes: [
            httpPost('before', `${http.baseUrl}/abort/before`),
            httpPost('flaky', `${http.baseUrl}/abort/flaky`, { on_failure: 'abort' }),
            transform('after', { from_before: '{{nodes.before.body.key}}' }),
          ],
          edges: chain('before', 'flaky', 'after'),
        },
        {},
        'failed',
      );
      expect(step(failed, 'flaky').error.code).toBe('http_status');
      http.failing.delete('/abort/flaky');
      // Parked first: a retry racing the failure's error.critical publish is lost (durability.test.ts).
      await waitUntilIdle(stack.client, executionId);
      const res = await stack.request('POST', `/api/v1/executions/${executionId}/retry`, { key });
      expect(res.status).toBe(202);
      const done = await stack.waitForExecution(key, executionId, (e) => e.status === 'success');
      expect(done.attempt).toBe(2);
      await save('abort-then-retry', executionId);
    })(),
  );

  // Parallel branches, one failing with on_failure continue, joined by a merge: ends partial.
  recordings.push(
    (async () => {
      http.failing.add('/merge/bad');
      const { executionId } = await run(
        'parallel-merge-continue',
        {
          nodes: [
            transform('start', { go: 'yes' }),
            httpPost('good', `${http.baseUrl}/merge/good`),
            httpPost('bad', `${http.baseUrl}/merge/bad`),
            { id: 'join', type: 'action.merge', config: {} },
            transform('end', { good: '{{nodes.good.status}}' }),
          ],
          edges: [
            { source: 'start', target: 'good' },
            { source: 'start', target: 'bad' },
            { source: 'good', target: 'join' },
            { source: 'bad', target: 'join' },
            { source: 'join', target: 'end' },
          ],
        },
        {},
        'partial',
      );
      await save('parallel-merge-continue', executionId);
    })(),
  );

  // A child workflow (action.workflow.execute, waiting for it), and the child's own history.
  recordings.push(
    (async () => {
      const childWorkflow = await createWorkflow(stack, key, {
        name: 'child',
        nodes: [
          httpPost('ping', `${http.baseUrl}/child/ping`),
          transform('reply', { got: '{{trigger.value}}' }),
        ],
        edges: chain('ping', 'reply'),
      });
      const { executionId, done } = await run('child-workflow', {
        nodes: [
          transform('prepare', { value: 'from parent' }),
          {
            id: 'child',
            type: 'action.workflow.execute',
            config: { workflow_id: childWorkflow, input: { value: '{{nodes.prepare.value}}' }, wait: true },
          },
          transform('after', { child_status: '{{nodes.child.status}}' }),
        ],
        edges: chain('prepare', 'child', 'after'),
      });
      expect(step(done, 'after').output).toEqual({ child_status: 'success' });
      await save('child-workflow.parent', executionId);
      await save('child-workflow.child', step(done, 'child').output.execution_id);
    })(),
  );

  // A waiting execution cancelled through the API.
  recordings.push(
    (async () => {
      const workflowId = await createWorkflow(stack, key, {
        name: 'cancel',
        nodes: [
          httpPost('before', `${http.baseUrl}/cancel/before`),
          { id: 'nap', type: 'action.delay', config: { duration: '1h' } },
        ],
        edges: chain('before', 'nap'),
      });
      const executionId = await execute(stack, key, workflowId);
      await stack.waitForExecution(key, executionId, (e) => e.status === 'waiting');
      // Parked on its timer (no task or activity left), so the recording cancels a sleeping run.
      await waitUntilIdle(stack.client, executionId);
      const res = await stack.request('POST', `/api/v1/executions/${executionId}/cancel`, { key });
      expect(res.status).toBe(200);
      expect((await stack.waitForExecution(key, executionId)).status).toBe('cancelled');
      await save('cancel', executionId);
    })(),
  );

  await Promise.all(recordings);
}
