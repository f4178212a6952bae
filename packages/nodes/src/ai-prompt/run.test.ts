import { describe, expect, it } from 'vitest';
import { nodeRunFailure, runContext } from '../../test/run-context';
import type { NodeHttpClient } from '../runner';
import { parseRetryAfter as retryAfterMs } from '../shared/http/retry-after';
import { aiPromptRunner } from './run';

type Sent = Parameters<NodeHttpClient['request']>[0];
const OPENAI = {
  provider: 'openai',
  base_url: 'https://llm.example/v1/',
  api_key: 'sk-test',
  default_model: 'small',
};
const ANTHROPIC = {
  provider: 'anthropic',
  base_url: 'https://claude.example',
  api_key: 'ak-test',
  default_model: 'claude',
};

function contextWith(
  module: unknown,
  answer: (req: Sent) => { status: number; body: unknown; headers?: Record<string, string> },
) {
  const sent: (Sent & { json: any })[] = [];
  const ctx = runContext({
    openModule: async (name) => (name === 'ai' ? (module as Record<string, unknown>) : null),
    http: {
      async request(req) {
        sent.push({ ...req, json: JSON.parse(String(req.body)) });
        const a = answer(req);
        return {
          status: a.status,
          headers: { 'content-type': 'application/json', ...(a.headers ?? {}) },
          body: new TextEncoder().encode(typeof a.body === 'string' ? a.body : JSON.stringify(a.body)),
        };
      },
    },
  });
  return { ctx, sent };
}

const openAiAnswer = (content: string) => ({
  model: 'small-2026',
  choices: [{ message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 5 },
});

describe('aiPromptRunner', () => {
  it('sends an OpenAI-compatible chat completion and returns text, model, usage and finish reason', async () => {
    const { ctx, sent } = contextWith(OPENAI, () => ({ status: 200, body: openAiAnswer('Hello') }));
    const output = await aiPromptRunner.run({ prompt: 'Say hi', system: 'Be brief', temperature: 0.2 }, ctx);
    expect(output).toEqual({
      text: 'Hello',
      model: 'small-2026',
      usage: { input_tokens: 12, output_tokens: 5 },
      finish_reason: 'stop',
    });
    expect(sent[0]?.url).toBe('https://llm.example/v1/chat/completions');
    expect(sent[0]?.headers?.authorization).toBe('Bearer sk-test');
    expect(sent[0]?.json).toEqual({
      model: 'small',
      max_tokens: 1024,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Say hi' },
      ],
    });
  });

  it('sends Anthropic Messages with its headers and reads its content blocks', async () => {
    const { ctx, sent } = contextWith(ANTHROPIC, () => ({
      status: 200,
      body: {
        model: 'claude-x',
        content: [
          { type: 'text', text: 'Hel' },
          { type: 'text', text: 'lo' },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 7, output_tokens: 2 },
      },
    }));
    const output = await aiPromptRunner.run(
      { prompt: 'Hi', system: 'Sys', model: 'claude-big', max_tokens: 50 },
      ctx,
    );
    expect(output).toEqual({
      text: 'Hello',
      model: 'claude-x',
      usage: { input_tokens: 7, output_tokens: 2 },
      finish_reason: 'end_turn',
    });
    expect(sent[0]?.url).toBe('https://claude.example/v1/messages');
    expect(sent[0]?.headers).toMatchObject({ 'x-api-key': 'ak-test', 'anthropic-version': '2023-06-01' });
    expect(sent[0]?.json).toEqual({
      model: 'claude-big',
      max_tokens: 50,
      temperature: 0.7,
      system: 'Sys',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('json: asks for a JSON object and parses the answer (also inside a code fence)', async () => {
    const { ctx, sent } = contextWith(OPENAI, () => ({
      status: 200,
      body: openAiAnswer('```json\n{"score": 9}\n```'),
    }));
    const output = (await aiPromptRunner.run({ prompt: 'Rate it', json: true }, ctx)) as { json: unknown };
    expect(output.json).toEqual({ score: 9 });
    expect(sent[0]?.json.response_format).toEqual({ type: 'json_object' });
  });

  it('json: an answer that is not JSON fails finally with ai_invalid_json and the raw text', async () => {
    const { ctx } = contextWith(OPENAI, () => ({ status: 200, body: openAiAnswer('nine out of ten') }));
    const error = await nodeRunFailure(aiPromptRunner.run({ prompt: 'Rate it', json: true }, ctx));
    expect([error.code, error.retryable, error.details]).toEqual([
      'ai_invalid_json',
      false,
      { text: 'nine out of ten' },
    ]);
  });

  it('maps provider answers: 429 and 5xx retry (honouring Retry-After), bad keys and other 4xx are final', async () => {
    const cases = [
      [
        { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } },
        'provider_rate_limited',
        true,
        7000,
      ],
      [{ status: 503, body: 'down' }, 'ai_provider_error', true, undefined],
      [{ status: 401, body: { error: { message: 'bad key' } } }, 'module_auth_failed', false, undefined],
      [
        { status: 400, body: { error: { message: 'model not found' } } },
        'ai_request_refused',
        false,
        undefined,
      ],
    ] as const;
    for (const [answer, code, retryable, wait] of cases) {
      const { ctx } = contextWith(OPENAI, () => answer);
      const error = await nodeRunFailure(aiPromptRunner.run({ prompt: 'x' }, ctx));
      expect([error.code, error.retryable, error.retryAfterMs], code).toEqual([code, retryable, wait]);
      if (code === 'ai_request_refused') expect(error.message).toContain('model not found');
    }
  });

  it('fails finally with module_not_configured when the organization has no AI module', async () => {
    const { ctx, sent } = contextWith(null, () => ({ status: 200, body: openAiAnswer('x') }));
    const error = await nodeRunFailure(aiPromptRunner.run({ prompt: 'x' }, ctx));
    expect([error.code, error.retryable]).toEqual(['module_not_configured', false]);
    expect(sent).toEqual([]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Tue, 24 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
