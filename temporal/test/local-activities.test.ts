import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingServer, startCountingServer } from './support';

/**
 * Short HTTP requests run as local activities (issue 24): in the worker holding the workflow task,
 * with no task-queue trip before or after them. Checked on the real engine through the history
 * Temporal records, the step the user sees (its duration is the call's, not zero) and the calls the
 * server got.
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: CountingServer;
const LATENCY_MS = 150;

async function api(method: string, path: string, body?: unknown) {
  const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function runHttp(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const created = await api('POST', '/workflows', {
    name: `local ${Math.random()}`,
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      { id: 'call', type: 'action.http_request', config: { method: 'GET', ...config }, ...extra },
      {
        id: 'shape',
        type: 'action.transform',
        config: { assignments: [{ key: 'path', value: '{{nodes.call.body.path}}' }] },
      },
    ],
    edges: [{ source: 'call', target: 'shape' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = await api('POST', `/workflows/${created.body.id}/execute`, { input: {} });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const execution = await h.waitForExecution(org.key, started.body.execution_id);
  // The record turns terminal before the workflow task that wrote it completes: wait for the run.
  const handle = h.client.workflow.getHandle(`exec-${execution.id}`);
  await handle.result();
  const history = await handle.fetchHistory();
  // Each event carries the attributes of its type only: `markerRecordedEventAttributes`, …
  const types = (history.events ?? []).flatMap((e) =>
    Object.keys(e).filter((k) => k.endsWith('EventAttributes') && e[k as keyof typeof e]),
  );
  return { execution, types };
}

const count = (types: string[], name: string) => types.filter((t) => t === name).length;
const has = (types: string[], name: string) => count(types, name) > 0;

beforeAll(async () => {
  server = await startCountingServer(() => LATENCY_MS);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.server.close();
});

describe('HTTP requests as local activities', () => {
  it('a request with the default timeout is a local activity: a marker, no activity task, one workflow task', async () => {
    const before = server.byPath('/short');
    const { execution, types } = await runHttp({ url: `${server.baseUrl}/short` });
    expect(execution.status).toBe('success');
    expect(server.byPath('/short') - before).toBe(1);
    expect(has(types, 'markerRecordedEventAttributes')).toBe(true);
    expect(has(types, 'activityTaskScheduledEventAttributes')).toBe(false);
    // Started eagerly and finished in the same workflow task: nothing waited on a task queue.
    expect(count(types, 'workflowTaskCompletedEventAttributes')).toBe(1);
    const call = execution.steps.find((s: any) => s.node_id === 'call');
    const shape = execution.steps.find((s: any) => s.node_id === 'shape');
    expect(call.output.body.path).toBe('/short');
    expect(shape.output.path).toBe('/short');
    // The step shows how long the call took, although workflow time stands still inside one task.
    expect(call.duration_ms).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it("a failed call's answer reaches its step as a regular activity's does", async () => {
    server.failing.add('/refused');
    try {
      const errors = [];
      for (const timeout_ms of [undefined, 120_000]) {
        const { execution } = await runHttp(
          { url: `${server.baseUrl}/refused`, ...(timeout_ms ? { timeout_ms } : {}) },
          { on_failure: 'continue' },
        );
        expect(execution.status).toBe('partial');
        const call = execution.steps.find((s: any) => s.node_id === 'call');
        expect(call.status).toBe('failed');
        errors.push(call.error);
      }
      const [local, regular] = errors;
      expect(regular.details?.body).toEqual({ error: 'not yet' });
      expect(local.code).toBe(regular.code);
      expect(local.details?.status).toBe(400);
      expect(local.details?.body).toEqual(regular.details.body);
    } finally {
      server.failing.delete('/refused');
    }
  });

  it('a request allowed more than 30 s stays a regular, heartbeating activity', async () => {
    const { execution, types } = await runHttp({ url: `${server.baseUrl}/long`, timeout_ms: 120_000 });
    expect(execution.status).toBe('success');
    expect(has(types, 'activityTaskScheduledEventAttributes')).toBe(true);
    const call = execution.steps.find((s: any) => s.node_id === 'call');
    expect(call.duration_ms).toBeGreaterThanOrEqual(LATENCY_MS);
  });
});
