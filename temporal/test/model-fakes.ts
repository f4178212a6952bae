/**
 * Model providers for agent tests, speaking the real wire formats: an OpenAI-compatible
 * chat-completions server (`POST /v1/chat/completions`: `tools`, `tool_calls`, `role: "tool"`) and
 * an Anthropic Messages server (`POST /v1/messages`: `tools`, `tool_use`, `tool_result`). Each is
 * scripted per test with a queue of answers (tool calls, parallel ones included, then a final
 * text) or a function of the request, and records every request it received.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: tool calls (several = parallel calls in one turn), or a final text, or both. */
export interface ScriptedAnswer {
  text?: string;
  tool_calls?: { name: string; arguments: unknown; id?: string }[];
  usage?: { input_tokens: number; output_tokens: number };
  /** Answer with this HTTP status (and an error body) instead. */
  status?: number;
}

export interface ModelFake {
  /** The base URL to configure as the AI module's `base_url` (OpenAI: with `/v1`). */
  url: string;
  /** Every request body received, in order. */
  requests: any[];
  /** When each request arrived (Date.now()), in the same order. */
  arrivals: number[];
  /** How many requests were answered with a scripted 2xx answer. */
  answered(): number;
  /** Queues answers, served in order; when the queue is empty `fallback` answers (else a 500). */
  script(...answers: ScriptedAnswer[]): void;
  /** Answers computed from the request, for concurrent executions that share one fake. */
  fallback?: (body: any) => ScriptedAnswer;
  /** Holds every answer this long (a call that is under way when a test kills the worker). */
  delayMs: number;
  close(): Promise<void>;
}

type Provider = 'openai' | 'anthropic';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}

function openAiBody(answer: ScriptedAnswer, model: string, n: number) {
  const calls = answer.tool_calls ?? [];
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call, i) => ({
                  id: call.id ?? `call_${n}_${i}`,
                  type: 'function',
                  function: {
                    name: call.name,
                    arguments:
                      typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
                  },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: answer.usage?.input_tokens ?? 10,
      completion_tokens: answer.usage?.output_tokens ?? 5,
    },
  };
}

function anthropicBody(answer: ScriptedAnswer, model: string, n: number) {
  const calls = answer.tool_calls ?? [];
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
      ...calls.map((call, i) => ({
        type: 'tool_use',
        id: call.id ?? `toolu_${n}_${i}`,
        name: call.name,
        input: call.arguments,
      })),
    ],
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    usage: {
      input_tokens: answer.usage?.input_tokens ?? 10,
      output_tokens: answer.usage?.output_tokens ?? 5,
    },
  };
}

/** The rules each API enforces that an agent loop can break: every tool call answered before the next request. */
function protocolError(provider: Provider, body: any): string | undefined {
  const messages: any[] = body.messages ?? [];
  if (provider === 'openai') {
    for (let i = 0; i < messages.length; i++) {
      const ids: string[] = (messages[i].tool_calls ?? []).map((c: any) => c.id);
      const answered = new Set(
        messages
          .slice(i + 1, i + 1 + ids.length)
          .filter((m) => m.role === 'tool')
          .map((m) => m.tool_call_id),
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${missing.join(', ')}`;
    }
    return undefined;
  }
  for (let i = 0; i < messages.length; i++) {
    const content = Array.isArray(messages[i].content) ? messages[i].content : [];
    const ids: string[] = content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    if (ids.length === 0) continue;
    const next = messages[i + 1];
    const blocks: any[] = next && Array.isArray(next.content) ? next.content : [];
    const answered = new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0 || next?.role !== 'user')
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
  }
  return undefined;
}

async function startModelFake(provider: Provider, apiKey: string): Promise<ModelFake> {
  const queue: ScriptedAnswer[] = [];
  let answered = 0;
  const fake: ModelFake = {
    url: '',
    requests: [],
    arrivals: [],
    answered: () => answered,
    script: (...answers) => {
      queue.push(...answers);
    },
    delayMs: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const path = provider === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const authorized =
      provider === 'openai'
        ? req.headers.authorization === `Bearer ${apiKey}`
        : req.headers['x-api-key'] === apiKey && typeof req.headers['anthropic-version'] === 'string';
    if (!authorized) return send(401, { error: { type: 'authentication_error', message: 'invalid key' } });
    if (req.method !== 'POST' || req.url !== path) return send(404, { error: { message: `no ${req.url}` } });
    const body = JSON.parse(raw);
    fake.requests.push(body);
    fake.arrivals.push(Date.now());
    const broken = protocolError(provider, body);
    if (broken) return send(400, { error: { type: 'invalid_request_error', message: broken } });
    const answer = queue.shift() ?? fake.fallback?.(body);
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    if (!answer) return send(500, { error: { message: 'the fake has no scripted answer left' } });
    if (answer.status) return send(answer.status, { error: { message: `scripted ${answer.status}` } });
    answered++;
    const model = String(body.model ?? 'fake-model');
    send(
      200,
      provider === 'openai' ? openAiBody(answer, model, answered) : anthropicBody(answer, model, answered),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = provider === 'openai' ? `${root}/v1` : root;
  return fake;
}

/** An OpenAI-compatible chat-completions server (configure `base_url` as `fake.url`, which ends in /v1). */
export const startOpenAiFake = (apiKey = 'sk-fake-openai') => startModelFake('openai', apiKey);

/** An Anthropic Messages server (configure `base_url` as `fake.url`). */
export const startAnthropicFake = (apiKey = 'sk-ant-fake') => startModelFake('anthropic', apiKey);
