import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The worker's CPU options (issue 24): workflow code on the main thread with the SDK's per-promise
 * stack tracking off by default, and the other way round on request. Both run executions; only the
 * second answers the `__stack_trace` query the Temporal UI's Stack Trace tab sends.
 */
const harnesses: EngineHarness[] = [];

afterAll(async () => {
  for (const h of harnesses) await h.close();
});

async function waitingExecution(options: { workflowThreads?: number; stackTraces?: boolean }) {
  const h = await createEngineHarness(options);
  harnesses.push(h);
  const org = await h.createOrg();
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
    return { status: res.status, json: (await res.json()) as any };
  };
  const created = await api('POST', '/workflows', {
    name: 'napping',
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      {
        id: 'total',
        type: 'action.transform',
        config: { assignments: [{ key: 'n', value: '{{trigger.n}}' }] },
      },
      { id: 'nap', type: 'action.delay', config: { duration: '1h' } },
    ],
    edges: [{ source: 'total', target: 'nap' }],
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const started = await api('POST', `/workflows/${created.json.id}/execute`, { input: { n: 7 } });
  expect(started.status).toBe(202);
  const execution = await h.waitForExecution(
    org.key,
    started.json.execution_id,
    (e) => e.status === 'waiting',
  );
  expect(execution.steps.find((s: any) => s.node_id === 'total').output).toEqual({ n: 7 });
  return h.client.workflow.getHandle(`exec-${execution.id}`).query<string>('__stack_trace');
}

describe('where workflow code runs', () => {
  it('on the main thread without stack tracking (the default): runs, and says stack traces are off', async () => {
    await expect(waitingExecution({})).rejects.toThrow(/stack traces are not enabled/);
  });

  it('on a workflow thread with stack tracking on: runs, and the query shows where the run waits', async () => {
    const trace = await waitingExecution({ workflowThreads: 1, stackTraces: true });
    // Source-mapped to our files: the Stack Trace tab shows the interpreter's own lines.
    expect(trace).toMatch(/temporal\/workflows\/.*\.ts:\d+/);
  });
});
