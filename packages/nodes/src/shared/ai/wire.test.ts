import { describe, expect, it } from 'vitest';
import type { AiMessage, AiRequest } from './messages';
import { readAnswer, wireRequest } from './wire';

const MODULE = { base_url: 'https://llm.example/v1', api_key: 'k', default_model: 'm' };
const TOOLS = [{ name: 'get_order', description: 'An order', input_schema: { type: 'object' } }];
// A turn with two parallel calls, one of which failed, then a follow-up question.
const CONVERSATION: AiMessage[] = [
  { role: 'user', parts: [{ type: 'text', text: 'Where are 42 and 7?' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'c1', name: 'get_order', args: { id: '42' } },
      { type: 'tool_call', id: 'c2', name: 'get_order', args: { id: '7' } },
    ],
  },
  {
    role: 'tool',
    parts: [
      { type: 'tool_result', call_id: 'c1', content: '{"status":"paid"}' },
      { type: 'tool_result', call_id: 'c2', content: 'not found', is_error: true },
    ],
  },
];
const REQUEST: AiRequest = { system: 'S', messages: CONVERSATION, tools: TOOLS, max_tokens: 100 };

describe('wire formats', () => {
  it('OpenAI: tools as functions, tool_calls with JSON-string arguments, one tool message per result', () => {
    const { body } = wireRequest('openai', MODULE, REQUEST, 'v');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_order', description: 'An order', parameters: { type: 'object' } },
      },
    ]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Where are 42 and 7?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"id":"42"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_order', arguments: '{"id":"7"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"status":"paid"}' },
      { role: 'tool', tool_call_id: 'c2', content: 'Error: not found' },
    ]);
  });

  it('Anthropic: tool_use blocks, and one user message of tool_result blocks (results first, then text)', () => {
    const withFollowUp: AiRequest = {
      ...REQUEST,
      messages: [...CONVERSATION, { role: 'user', parts: [{ type: 'text', text: 'And?' }] }],
    };
    const { body, url } = wireRequest(
      'anthropic',
      { ...MODULE, base_url: 'https://c.example' },
      withFollowUp,
      'v',
    );
    expect(url).toBe('https://c.example/v1/messages');
    expect(body.tools).toEqual([
      { name: 'get_order', description: 'An order', input_schema: { type: 'object' } },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: 'Where are 42 and 7?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'c1', name: 'get_order', input: { id: '42' } },
          { type: 'tool_use', id: 'c2', name: 'get_order', input: { id: '7' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: '{"status":"paid"}' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'not found', is_error: true },
          { type: 'text', text: 'And?' },
        ],
      },
    ]);
  });

  it('reads parallel tool calls from either answer; arguments that do not parse stay a string', () => {
    const openAi = readAnswer('openai', {
      model: 'gpt',
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'x', arguments: '{"n":1}' } },
              { id: 'b', type: 'function', function: { name: 'y', arguments: '{"n":' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    });
    expect(openAi?.tool_calls).toEqual([
      { id: 'a', name: 'x', args: { n: 1 } },
      { id: 'b', name: 'y', args: '{"n":' },
    ]);
    expect([openAi?.text, openAi?.finish_reason, openAi?.usage]).toEqual([
      '',
      'tool_calls',
      { input_tokens: 3, output_tokens: 4 },
    ]);
    const anthropic = readAnswer('anthropic', {
      model: 'claude',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 't1', name: 'x', input: { n: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 6 },
    });
    expect(anthropic?.message).toEqual({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 't1', name: 'x', args: { n: 1 } },
      ],
    });
    expect(readAnswer('anthropic', { nothing: true })).toBeUndefined();
  });
});
