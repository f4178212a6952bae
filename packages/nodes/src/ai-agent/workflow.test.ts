import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import type { AiAnswer, AiMessage, AiToolCall } from '../shared/ai/messages';
import type { AgentModelRequest, AgentRuntime, AgentToolRequest } from './contract';
import { aiAgentWorkflow } from './workflow';

const answer = (text: string, calls: AiToolCall[] = []): AiAnswer => ({
  message: {
    role: 'assistant',
    parts: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...calls.map((c) => ({ type: 'tool_call' as const, ...c })),
    ],
  },
  text,
  tool_calls: calls,
  model: 'm',
  usage: { input_tokens: 10, output_tokens: 2 },
  finish_reason: calls.length ? 'tool_calls' : 'stop',
});

/** An agent runtime answering from a script, recording what the loop asked of it. */
function scriptedRuntime(answers: AiAnswer[], memory: AiMessage[][] = []) {
  const models: AgentModelRequest[] = [];
  const tools: AgentToolRequest[] = [];
  const saved: AiMessage[][] = [];
  const runtime: AgentRuntime = {
    listTools: async () => [
      { name: 'add', description: 'Adds', input_schema: { type: 'object' }, source: 0 },
    ],
    callModel: async (request) => {
      models.push(structuredClone(request));
      const next = answers.shift();
      if (!next) throw new Error('no scripted answer');
      return { answer: next, duration_ms: 1 };
    },
    callTool: async (request) => {
      tools.push(request);
      return { content: '3', result: 3, duration_ms: 1 };
    },
    loadMemory: async () => memory,
    saveMemory: async (_key, turn) => {
      saved.push(turn);
    },
  };
  return { runtime, models, tools, saved };
}

const execute = (config: Record<string, unknown>, runtime: AgentRuntime) =>
  aiAgentWorkflow.execute?.(
    { tools: [{ mcp_url: 'https://tools.example/mcp' }], max_steps: 5, max_tokens: 100, ...config },
    fakeWorkflowContext({ agent: runtime }),
  );

describe('the agent loop (workflow.ts)', () => {
  it('answers an unknown tool and unparsable arguments itself, never calling a tool for them', async () => {
    const { runtime, tools, models } = scriptedRuntime([
      answer('', [
        { id: 'a', name: 'nope', args: {} },
        { id: 'b', name: 'add', args: '{"a":' },
        { id: 'c', name: 'add', args: { a: 1, b: 2 } },
      ]),
      answer('done'),
    ]);
    const result = (await execute({ prompt: 'go' }, runtime)) as { output: any };
    expect(tools.map((t) => t.call.id)).toEqual(['c']);
    expect(result.output.tool_calls.map((c: any) => [c.id, c.error ?? c.result])).toEqual([
      ['a', 'unknown tool nope'],
      ['b', 'arguments are not valid JSON'],
      ['c', 3],
    ]);
    // The next model call gets one result per call, in call order, errors flagged.
    expect(models[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      parts: [
        { type: 'tool_result', call_id: 'a', content: 'There is no tool named nope.', is_error: true },
        { type: 'tool_result', call_id: 'b', content: 'The arguments are not valid JSON.', is_error: true },
        { type: 'tool_result', call_id: 'c', content: '3' },
      ],
    });
    expect(result.output.usage).toEqual({ input_tokens: 20, output_tokens: 4 });
  });

  it('starts from the remembered turns and saves the new turn whole (tool call and result together)', async () => {
    const earlier: AiMessage[] = [
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'hello' }] },
    ];
    const { runtime, models, saved } = scriptedRuntime(
      [answer('', [{ id: 'x', name: 'add', args: { a: 1, b: 2 } }]), answer('3')],
      [earlier],
    );
    await execute({ prompt: 'add', memory: { key: 'k', window: 5 } }, runtime);
    expect(models[0]?.messages.slice(0, 2)).toEqual(earlier);
    expect(saved[0]?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('repairs an answer that misses output_schema once, without tools; a second miss fails the step', async () => {
    const bad = { answer: answer('not json'), duration_ms: 1, json_error: 'it is not JSON' };
    const good = { answer: answer('{"ok":true}'), duration_ms: 1, json: { ok: true } };
    const results = [bad, good];
    const requests: AgentModelRequest[] = [];
    const { runtime } = scriptedRuntime([]);
    runtime.callModel = async (request) => {
      requests.push(structuredClone(request));
      return results.shift() ?? bad;
    };
    const result = (await execute({ prompt: 'x', output_schema: { type: 'object' } }, runtime)) as any;
    expect(result.output.json).toEqual({ ok: true });
    expect(requests[1]?.tools).toEqual([]);

    results.push(bad, bad);
    await expect(execute({ prompt: 'x', output_schema: { type: 'object' } }, runtime)).rejects.toMatchObject({
      code: 'ai_invalid_output',
    });
  });

  it('refuses a memory key that rendered empty, before any call', async () => {
    const { runtime, models } = scriptedRuntime([answer('hi')]);
    await expect(execute({ prompt: 'x', memory: { key: '  ', window: 5 } }, runtime)).rejects.toMatchObject({
      code: 'agent_memory_key_empty',
    });
    expect(models).toEqual([]);
  });
});
