/**
 * The AI agent survives kill -9 of its worker mid-loop: the loop resumes from the workflow history
 * on a new worker, and no model call or tool call that completed is made again. Counted at the
 * fakes: each execution's model calls by step, each tool call by its arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFake, startMcpFake } from './mcp-fake';
import { type ModelFake, startOpenAiFake } from './model-fakes';
import { createStack, createWorkflow, execute, type ServiceProcess, type Stack, sleep } from './support';

let stack: Stack;
let org: { organizationId: string; key: string };
let model: ModelFake;
let mcp: McpFake;
let worker: ServiceProcess | undefined;

const EXECUTIONS = 6;
/** Model calls per execution: two parallel tool calls, one more, then the answer. */
const STEPS = 3;

/** The run number in a request's first user message (`run <n>`). */
const runOf = (body: any) => Number(/run (\d+)/.exec(JSON.stringify(body.messages))?.[1]);
/** Which model call of its loop a request is: one more than the assistant turns it carries. */
const stepOf = (body: any) => body.messages.filter((m: any) => m.role === 'assistant').length + 1;

beforeAll(async () => {
  [stack, model, mcp] = await Promise.all([createStack(), startOpenAiFake(), startMcpFake()]);
  org = await stack.createOrg();
  const configured = await stack.request('PUT', '/api/v1/modules/ai', {
    key: org.key,
    body: { provider: 'openai', base_url: model.url, api_key: 'sk-fake-openai', default_model: 'm' },
  });
  expect(configured.status).toBe(200);
  // Each call takes a while, so that kills land while calls are under way.
  model.delayMs = 400;
  mcp.delayMs = 400;
  model.fallback = (body) => {
    const n = runOf(body);
    switch (stepOf(body)) {
      case 1:
        return {
          tool_calls: [
            { name: 'add', arguments: { a: n, b: 1000 } },
            { name: 'add', arguments: { a: n, b: 2000 } },
          ],
        };
      case 2:
        return { tool_calls: [{ name: 'add', arguments: { a: n, b: 3000 } }] };
      default:
        return { text: `done ${n}` };
    }
  };
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await stack?.close();
  await Promise.all([model?.close(), mcp?.close()]);
});

describe('an agent whose worker is killed mid-loop', () => {
  it('finishes every execution without repeating a completed model or tool call', async () => {
    const t0 = Date.now();
    const workflowId = await createWorkflow(stack, org.key, {
      name: 'durable agent',
      nodes: [
        {
          id: 'agent',
          type: 'action.ai.agent',
          config: { prompt: 'run {{trigger.n}}', tools: [{ mcp_url: mcp.url, tool_names: ['add'] }] },
        },
      ],
      edges: [],
    });
    worker = await stack.startWorker();
    const ids: string[] = [];
    for (let n = 1; n <= EXECUTIONS; n++) ids.push(await execute(stack, org.key, workflowId, { n }));

    // Kill the worker (SIGKILL) twice while model calls are under way, a new one started each time.
    const kills: number[] = [];
    for (const answered of [EXECUTIONS, EXECUTIONS * 2]) {
      while (model.answered() < answered || model.requests.length === model.answered()) await sleep(5);
      await worker.kill();
      kills.push(Date.now());
      worker = await stack.startWorker();
    }

    for (const id of ids) {
      // A workflow cached by the killed worker resumes after the sticky queue's timeout (10 s).
      const done = await stack.waitForExecution(org.key, id, (e) => e.status === 'success', 60_000);
      const output = done.steps.find((s: any) => s.node_id === 'agent').output;
      expect(output.model_calls.map((c: any) => c.step)).toEqual([1, 2, 3]);
      expect(output.tool_calls).toHaveLength(3);
    }

    // Model calls: one per (run, step), except a call under way at a kill, which may be made again.
    const byCall = new Map<string, number[]>();
    model.requests.forEach((body, i) => {
      const key = `${runOf(body)}:${stepOf(body)}`;
      byCall.set(key, [...(byCall.get(key) ?? []), model.arrivals[i] as number]);
    });
    expect(byCall.size).toBe(EXECUTIONS * STEPS);
    for (const [key, times] of byCall) {
      for (let i = 1; i < times.length; i++) {
        const [before, after] = [times[i - 1] as number, times[i] as number];
        expect(
          kills.some((k) => before < k && k < after),
          `model call ${key} made again at ${after - t0} ms after ${before - t0} ms with no kill between`,
        ).toBe(true);
      }
    }
    const repeatedModelCalls = model.requests.length - byCall.size;
    // Tool calls are made at most once (MCP has no idempotency key): an interrupted one is reported
    // to the model as failed, never repeated.
    const toolKeys = mcp.calls.map((c) => JSON.stringify(c.arguments));
    expect(new Set(toolKeys).size, 'a tool call was repeated').toBe(toolKeys.length);
    console.log(
      `[durability-agent] ${EXECUTIONS} executions, ${kills.length} SIGKILLs: ${model.requests.length} model calls ` +
        `(${repeatedModelCalls} repeated, under way at a kill), ${mcp.calls.length} tool calls; ` +
        `done at ${Date.now() - t0} ms`,
    );
  }, 150_000);
});
