/**
 * action.ai.agent end to end: the organization's AI module pointed at scripted OpenAI-compatible
 * and Anthropic fakes, tools from an MCP server built with the official SDK. Each model call and
 * tool call is its own activity; parallel calls in one turn are answered together.
 */
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFake, startMcpFake } from './mcp-fake';
import { type ModelFake, startAnthropicFake, startOpenAiFake } from './model-fakes';

let h: EngineHarness;
let openAi: ModelFake;
let anthropic: ModelFake;
let mcp: McpFake;
const orgs: Record<'openai' | 'anthropic', { organizationId: string; key: string }> = {} as never;

beforeAll(async () => {
  [openAi, anthropic, mcp] = await Promise.all([startOpenAiFake(), startAnthropicFake(), startMcpFake()]);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  for (const [provider, fake, apiKey] of [
    ['openai', openAi, 'sk-fake-openai'],
    ['anthropic', anthropic, 'sk-ant-fake'],
  ] as const) {
    orgs[provider] = await h.createOrg(`agent ${provider}`);
    const configured = await h.request('PUT', '/api/v1/modules/ai', {
      key: orgs[provider].key,
      body: { provider, base_url: fake.url, api_key: apiKey, default_model: `${provider}-model` },
    });
    expect(configured.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([openAi?.close(), anthropic?.close(), mcp?.close()]);
});

async function runAgent(provider: 'openai' | 'anthropic', config: Record<string, unknown>, input = {}) {
  const { key } = orgs[provider];
  const created = await h.request('POST', '/api/v1/workflows', {
    key,
    body: {
      name: `agent ${provider}`,
      trigger_type: 'manual',
      status: 'active',
      nodes: [{ id: 'agent', type: 'action.ai.agent', config }],
      edges: [],
    },
  });
  const workflow = (await created.json()) as any;
  expect(created.status, JSON.stringify(workflow)).toBe(201);
  const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key,
    body: { input },
  });
  const { execution_id } = (await started.json()) as any;
  const execution = await h.waitForExecution(key, execution_id, undefined, 60_000);
  return { execution, step: execution.steps.find((s: any) => s.node_id === 'agent') };
}

describe('action.ai.agent', () => {
  it('OpenAI: two parallel MCP tool calls, then a final answer; every call recorded with its result', async () => {
    openAi.script(
      {
        tool_calls: [
          { name: 'lookup_order', arguments: { order_id: 'A1' } },
          { name: 'add', arguments: { a: 2, b: 3 } },
        ],
        usage: { input_tokens: 50, output_tokens: 20 },
      },
      { text: 'Order A1 is paid; 2 + 3 = 5.', usage: { input_tokens: 90, output_tokens: 12 } },
    );
    const before = openAi.requests.length;
    const { execution, step } = await runAgent(
      'openai',
      {
        prompt: 'Where is order {{trigger.order}}, and what is 2 + 3?',
        system: 'You are a support agent.',
        tools: [{ mcp_url: mcp.url }],
      },
      { order: 'A1' },
    );
    expect(execution.status, JSON.stringify(step)).toBe('success');
    expect(step.output).toMatchObject({
      text: 'Order A1 is paid; 2 + 3 = 5.',
      model: 'openai-model',
      usage: { input_tokens: 140, output_tokens: 32 },
      tool_calls: [
        {
          name: 'lookup_order',
          arguments: { order_id: 'A1' },
          result: { order_id: 'A1', status: 'paid' },
          step: 1,
        },
        { name: 'add', arguments: { a: 2, b: 3 }, result: 5, step: 1 },
      ],
    });
    expect(step.output.model_calls.map((c: any) => c.step)).toEqual([1, 2]);
    for (const call of step.output.tool_calls) expect(call.duration_ms).toBeGreaterThanOrEqual(0);

    const [first, second] = openAi.requests.slice(before);
    expect(openAi.requests.length - before).toBe(2);
    expect(first.messages).toEqual([
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: 'Where is order A1, and what is 2 + 3?' },
    ]);
    expect(first.tools.map((t: any) => t.function.name).sort()).toEqual([
      'add',
      'fail',
      'lookup_order',
      'repeat',
    ]);
    expect(second.messages.slice(2)).toEqual([
      expect.objectContaining({ role: 'assistant', tool_calls: expect.any(Array) }),
      { role: 'tool', tool_call_id: 'call_1_0', content: '{"order_id":"A1","status":"paid"}' },
      { role: 'tool', tool_call_id: 'call_1_1', content: '5' },
    ]);
    expect(mcp.callsOf('lookup_order')).toBeGreaterThanOrEqual(1);
  });

  it('Anthropic: tool_use, a tool error fed back as tool_result is_error, output_schema repaired once', async () => {
    anthropic.script(
      { text: 'Let me check.', tool_calls: [{ name: 'fail', arguments: {} }] },
      { text: 'The status is paid.' },
      { text: '{"status": "paid", "confidence": 0.9}' },
    );
    const before = anthropic.requests.length;
    const { execution, step } = await runAgent('anthropic', {
      prompt: 'Check it',
      tools: [{ mcp_url: mcp.url, tool_names: ['fail'] }],
      output_schema: {
        type: 'object',
        required: ['status', 'confidence'],
        properties: { status: { type: 'string' }, confidence: { type: 'number' } },
      },
    });
    expect(execution.status, JSON.stringify(step)).toBe('success');
    expect(step.output.json).toEqual({ status: 'paid', confidence: 0.9 });
    expect(step.output.tool_calls).toEqual([
      expect.objectContaining({ name: 'fail', error: 'the tool broke', step: 1 }),
    ]);
    const mine = anthropic.requests.slice(before);
    expect(mine).toHaveLength(3);
    expect(mine[0].tools.map((t: any) => t.name)).toEqual(['fail']);
    expect(mine[1].messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1_0', content: 'the tool broke', is_error: true }],
    });
    // The repair round: the model is told what was wrong, without tools.
    expect(mine[2].tools).toBeUndefined();
    expect(JSON.stringify(mine[2].messages.at(-1))).toContain('not valid: it is not JSON');
  });

  it('fails with agent_max_steps when the model is still calling tools after max_steps', async () => {
    const before = openAi.requests.length;
    openAi.script(
      { tool_calls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { tool_calls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
    );
    const { execution, step } = await runAgent('openai', {
      prompt: 'Count forever',
      tools: [{ mcp_url: mcp.url }],
      max_steps: 2,
    });
    // The default on_failure (continue): the execution ends partial, the step failed.
    expect([execution.status, step.status, step.error.code]).toEqual([
      'partial',
      'failed',
      'agent_max_steps',
    ]);
    expect(openAi.requests.length - before).toBe(2);
  });

  it('memory: a second conversation under the same key starts with the first one, tool calls included', async () => {
    openAi.script(
      { tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'C3' } }] },
      { text: 'Order C3 was refunded.' },
      { text: 'As I said, C3 was refunded.' },
      { text: 'Hello, stranger.' },
    );
    const config = {
      prompt: '{{trigger.text}}',
      tools: [{ mcp_url: mcp.url }],
      memory: { key: '{{trigger.sender}}', window: 5 },
    };
    const before = openAi.requests.length;
    const first = await runAgent('openai', config, { sender: '+4915100000001', text: 'What about C3?' });
    expect(first.execution.status).toBe('success');
    const second = await runAgent('openai', config, { sender: '+4915100000001', text: 'Sure?' });
    expect(second.step.output.text).toBe('As I said, C3 was refunded.');
    const third = await runAgent('openai', config, { sender: '+4915100000002', text: 'Hi' });
    expect(third.execution.status).toBe('success');
    const [, , remembered, fresh] = openAi.requests.slice(before);
    expect(remembered.messages.map((m: any) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(remembered.messages[2]).toMatchObject({
      role: 'tool',
      content: '{"order_id":"C3","status":"refunded"}',
    });
    expect(remembered.messages.at(-1)).toEqual({ role: 'user', content: 'Sure?' });
    // Another key: a conversation of its own.
    expect(fresh.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('tool workflows: called as child executions; arguments its schema refuses go back to the model as an error', async () => {
    const { key } = orgs.anthropic;
    const created = await h.request('POST', '/api/v1/workflows', {
      key,
      body: {
        name: 'Greeter tool',
        trigger_type: 'tool',
        trigger_config: {
          name: 'greet',
          description: 'Greets someone by name',
          input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
        status: 'active',
        nodes: [
          {
            id: 'greeting',
            type: 'action.transform',
            config: { assignments: [{ key: 'text', value: 'Hello {{ trigger.name }}' }] },
          },
        ],
        edges: [],
      },
    });
    const tool = (await created.json()) as any;
    expect(created.status, JSON.stringify(tool)).toBe(201);
    anthropic.script(
      {
        tool_calls: [
          { name: 'greet', arguments: { name: 'Ada' } },
          { name: 'greet', arguments: { nickname: 'Bob' } },
        ],
      },
      { text: 'Greeted Ada; Bob needs a name.' },
    );
    const before = anthropic.requests.length;
    const { execution, step } = await runAgent('anthropic', {
      prompt: 'Greet Ada and Bob',
      tools: [{ workflow_id: tool.id }],
    });
    expect(execution.status, JSON.stringify(step)).toBe('success');
    const [ada, bob] = step.output.tool_calls;
    expect(ada).toMatchObject({
      name: 'greet',
      result: { text: 'Hello Ada' },
      execution_id: expect.any(String),
    });
    expect(bob.error).toContain('input schema');
    const first = anthropic.requests[before];
    expect(first.tools).toEqual([
      {
        name: 'greet',
        description: 'Greets someone by name',
        input_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    ]);
    // The child execution is the tool workflow's, started by this one.
    const child = (await (
      await h.request('GET', `/api/v1/executions/${ada.execution_id}`, { key })
    ).json()) as any;
    expect([child.workflow_id, child.trigger, child.parent_execution_id]).toEqual([
      tool.id,
      'tool',
      execution.id,
    ]);
  });

  it('requires_approval: the call waits for a person; a rejection goes back to the model, an approval runs it', async () => {
    const { key } = orgs.openai;
    openAi.script(
      {
        tool_calls: [
          { name: 'lookup_order', arguments: { order_id: 'A1' } },
          { name: 'lookup_order', arguments: { order_id: 'B2' } },
        ],
      },
      { text: 'A1 is paid; I may not look at B2.' },
    );
    const before = openAi.requests.length;
    const callsBefore = mcp.callsOf('lookup_order');
    const created = await h.request('POST', '/api/v1/workflows', {
      key,
      body: {
        name: 'gated agent',
        trigger_type: 'manual',
        status: 'active',
        nodes: [
          {
            id: 'agent',
            type: 'action.ai.agent',
            config: { prompt: 'Check A1 and B2', tools: [{ mcp_url: mcp.url, requires_approval: true }] },
          },
        ],
        edges: [],
      },
    });
    const workflow = (await created.json()) as any;
    const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, { key, body: {} });
    const { execution_id } = (await started.json()) as any;
    await h.waitForExecution(key, execution_id, (e) => e.status === 'waiting');
    let pending: any[] = [];
    await expect
      .poll(async () => {
        const list = (await (
          await h.request('GET', '/api/v1/approvals?status=pending&per_page=100', { key })
        ).json()) as any;
        pending = list.data.filter((a: any) => a.execution_id === execution_id);
        return pending.length;
      })
      .toBe(2);
    // Nothing was called while the approvals wait.
    expect(mcp.callsOf('lookup_order')).toBe(callsBefore);
    const [forA1, forB2] = ['A1', 'B2'].map((id) => pending.find((a) => a.message.includes(`"${id}"`)));
    for (const [approval, decision, comment] of [
      [forA1, 'approve', undefined],
      [forB2, 'reject', 'not this customer'],
    ] as const) {
      const decided = await h.request('POST', `/api/v1/approvals/${approval.id}/decision`, {
        key,
        body: { decision, ...(comment ? { comment } : {}) },
      });
      expect(decided.status).toBe(200);
    }
    const done = await h.waitForExecution(key, execution_id, undefined, 30_000);
    expect(done.status).toBe('success');
    const [a1, b2] = done.steps.find((s: any) => s.node_id === 'agent').output.tool_calls;
    expect(a1).toMatchObject({
      result: { order_id: 'A1', status: 'paid' },
      approval: { decision: 'approve' },
    });
    expect(b2).toMatchObject({
      error: 'not approved: denied by reviewer: not this customer',
      approval: { decision: 'reject' },
    });
    expect(mcp.callsOf('lookup_order')).toBe(callsBefore + 1);
    const second = openAi.requests[before + 1];
    expect(second.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: expect.stringMatching(/^call_\d+_1$/),
      content: 'Error: The call was not made: denied by reviewer: not this customer.',
    });
  });

  it('token usage and estimated cost per organization, workflow, model and execution on the dashboard', async () => {
    const usageOrg = await h.createOrg('agent usage');
    await h.request('PUT', '/api/v1/modules/ai', {
      key: usageOrg.key,
      body: {
        provider: 'openai',
        base_url: openAi.url,
        api_key: 'sk-fake-openai',
        default_model: 'gpt-4o-mini',
      },
    });
    const orgKey = orgs.openai;
    orgs.openai = usageOrg;
    try {
      openAi.script(
        {
          tool_calls: [{ name: 'add', arguments: { a: 1, b: 2 } }],
          usage: { input_tokens: 1000, output_tokens: 200 },
        },
        { text: '3', usage: { input_tokens: 1500, output_tokens: 100 } },
      );
      const { execution } = await runAgent('openai', { prompt: 'Add', tools: [{ mcp_url: mcp.url }] });
      const res = await h.request('GET', '/api/v1/dashboard/ai-usage', { key: usageOrg.key });
      expect(res.status).toBe(200);
      const usage = (await res.json()) as any;
      const cost = (2500 * 0.15 + 300 * 0.6) / 1_000_000;
      expect(usage.organization).toEqual({
        input_tokens: 2500,
        output_tokens: 300,
        cost_usd: cost,
        steps: 1,
      });
      expect(usage.by_workflow).toEqual([
        expect.objectContaining({ workflow_id: execution.workflow_id, input_tokens: 2500, cost_usd: cost }),
      ]);
      expect(usage.by_model).toEqual([expect.objectContaining({ model: 'gpt-4o-mini', output_tokens: 300 })]);
      expect(usage.top_executions).toEqual([
        expect.objectContaining({ execution_id: execution.id, steps: 1 }),
      ]);
      // Another organization's usage is its own: an unlisted model's cost is unknown, not zero.
      const other = (await (
        await h.request('GET', '/api/v1/dashboard/ai-usage', { key: orgKey.key })
      ).json()) as any;
      expect(other.organization.input_tokens).toBeGreaterThan(0);
      expect(other.organization.cost_usd).toBeNull();
    } finally {
      orgs.openai = orgKey;
    }
  });

  it('a tool answer past 64 KiB is cut, for the model and in the output, and says so', async () => {
    openAi.script(
      { tool_calls: [{ name: 'repeat', arguments: { text: 'abcd', times: 50_000 } }] },
      { text: 'long' },
    );
    const before = openAi.requests.length;
    const { execution, step } = await runAgent('openai', { prompt: 'Repeat', tools: [{ mcp_url: mcp.url }] });
    expect(execution.status).toBe('success');
    const result = step.output.tool_calls[0].result as string;
    expect(result.startsWith('abcdabcd')).toBe(true);
    expect(result).toMatch(/\[cut: the tool answered 200000 characters; the first 65536 are kept\]$/);
    expect(openAi.requests[before + 1].messages.at(-1).content).toBe(result);
  });

  it("an MCP server's credential comes from the vault; its tool list is cached between executions", async () => {
    const token = 'mcp-secret-token-4711';
    const guarded = await startMcpFake({ token });
    try {
      const { key } = orgs.anthropic;
      const created = await h.request('POST', '/api/v1/credentials', {
        key,
        body: { name: 'Shop MCP', type: 'http_bearer', fields: { token } },
      });
      const credential = (await created.json()) as any;
      expect(created.status, JSON.stringify(credential)).toBe(201);
      const config = { prompt: 'A1?', tools: [{ mcp_url: guarded.url, credential_id: credential.id }] };
      for (let i = 0; i < 2; i++) {
        anthropic.script(
          { tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A1' } }] },
          { text: 'A1 is paid.' },
        );
        const { execution, step } = await runAgent('anthropic', config);
        expect(execution.status, JSON.stringify(step)).toBe('success');
        expect(step.output.tool_calls[0].result).toEqual({ order_id: 'A1', status: 'paid' });
        // The token reached the server only: never the step, its config or its output.
        expect(JSON.stringify(execution)).not.toContain(token);
      }
      expect(guarded.callsOf('lookup_order')).toBe(2);
      // Listed once: the second execution took the list from the worker's cache.
      expect(guarded.listRequests()).toBe(1);

      // Without the credential the server refuses (401): final at once, and no model call.
      const before = anthropic.requests.length;
      const { step } = await runAgent('anthropic', { prompt: 'A1?', tools: [{ mcp_url: guarded.url }] });
      expect(step.status).toBe('failed');
      expect(step.error.code).toBe('mcp_auth_failed');
      expect(anthropic.requests.length).toBe(before);
    } finally {
      await guarded.close();
    }
  }, 60_000);
});
