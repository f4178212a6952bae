/**
 * The two wire formats of the AI module, made from the neutral conversation (messages.ts) and read
 * back into it: OpenAI-compatible chat completions (`tools`, `tool_calls` with JSON-string
 * arguments, one `role: "tool"` message per result) and Anthropic Messages (`tools`, `tool_use`
 * blocks, one user message of `tool_result` blocks per turn, results first).
 */
import { z } from 'zod';
import type { AiAnswer, AiMessage, AiRequest, AiToolCall } from './messages';
import { textOf } from './messages';

export type AiProvider = 'openai' | 'anthropic';

/** OpenAI arguments are a JSON string that may not parse: kept as the string, the agent answers the model with an error. */
function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return raw;
  }
}

const argumentsText = (args: unknown) => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

function openAiMessages(request: AiRequest): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = request.system ? [{ role: 'system', content: request.system }] : [];
  for (const message of request.messages) {
    if (message.role === 'user') out.push({ role: 'user', content: textOf(message) });
    else if (message.role === 'assistant') {
      const calls = message.parts.flatMap((p) => (p.type === 'tool_call' ? [p] : []));
      const text = textOf(message);
      out.push({
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: argumentsText(c.args) },
              })),
            }
          : {}),
      });
    } else {
      for (const part of message.parts) {
        if (part.type !== 'tool_result') continue;
        // OpenAI has no error flag: the content says it.
        out.push({
          role: 'tool',
          tool_call_id: part.call_id,
          content: part.is_error ? `Error: ${part.content}` : part.content,
        });
      }
    }
  }
  return out;
}

type AnthropicBlock = Record<string, unknown>;

function anthropicMessages(request: AiRequest): { role: 'user' | 'assistant'; content: unknown }[] {
  const out: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = [];
  for (const message of request.messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks: AnthropicBlock[] = [];
    for (const part of message.parts) {
      if (part.type === 'text' && part.text !== '') blocks.push({ type: 'text', text: part.text });
      if (part.type === 'tool_call') {
        const input = part.args !== null && typeof part.args === 'object' ? part.args : {};
        blocks.push({ type: 'tool_use', id: part.id, name: part.name, input });
      }
      if (part.type === 'tool_result') {
        blocks.push({
          type: 'tool_result',
          tool_use_id: part.call_id,
          content: part.content,
          ...(part.is_error ? { is_error: true } : {}),
        });
      }
    }
    const last = out[out.length - 1];
    // One turn's results and any text after them go in one user message, results first.
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  // A lone text block is sent as a plain string, the shape every client sends.
  return out.map((m) =>
    m.content.length === 1 && m.content[0]?.type === 'text'
      ? { role: m.role, content: m.content[0].text }
      : m,
  );
}

/** The request each API shape expects. */
export function wireRequest(
  provider: AiProvider,
  module: { base_url: string; api_key: string; default_model: string },
  request: AiRequest,
  anthropicVersion: string,
): { url: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const base = module.base_url.replace(/\/+$/, '');
  const model = request.model ?? module.default_model;
  const tools = request.tools ?? [];
  const temperature = request.temperature === undefined ? {} : { temperature: request.temperature };
  if (provider === 'anthropic') {
    return {
      url: `${base}/v1/messages`,
      headers: { 'x-api-key': module.api_key, 'anthropic-version': anthropicVersion },
      body: {
        model,
        max_tokens: request.max_tokens,
        ...temperature,
        ...(request.system ? { system: request.system } : {}),
        ...(tools.length > 0
          ? {
              tools: tools.map((t) => ({
                name: t.name,
                description: t.description,
                input_schema: t.input_schema,
              })),
            }
          : {}),
        messages: anthropicMessages(request),
      },
    };
  }
  return {
    url: `${base}/chat/completions`,
    headers: { authorization: `Bearer ${module.api_key}` },
    body: {
      model,
      max_tokens: request.max_tokens,
      ...temperature,
      messages: openAiMessages(request),
      ...(tools.length > 0
        ? {
            tools: tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.input_schema },
            })),
          }
        : {}),
      ...(request.json ? { response_format: { type: 'json_object' } } : {}),
    },
  };
}

const OpenAiAnswer = z.object({
  model: z.string().default(''),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().default(null),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                function: z.object({ name: z.string(), arguments: z.string().default('{}') }),
              }),
            )
            .nullable()
            .default(null),
        }),
        finish_reason: z.string().nullable().default(null),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().default(0), completion_tokens: z.number().default(0) })
    .default({ prompt_tokens: 0, completion_tokens: 0 }),
});

const AnthropicAnswer = z.object({
  model: z.string().default(''),
  content: z.array(
    z.object({
      type: z.string(),
      text: z.string().optional(),
      id: z.string().optional(),
      name: z.string().optional(),
      input: z.unknown().optional(),
    }),
  ),
  stop_reason: z.string().nullable().default(null),
  usage: z
    .object({ input_tokens: z.number().default(0), output_tokens: z.number().default(0) })
    .default({ input_tokens: 0, output_tokens: 0 }),
});

function answer(
  text: string,
  calls: AiToolCall[],
  rest: Omit<AiAnswer, 'message' | 'text' | 'tool_calls'>,
): AiAnswer {
  const message: AiMessage = {
    role: 'assistant',
    parts: [
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
      ...calls.map((c) => ({ type: 'tool_call' as const, id: c.id, name: c.name, args: c.args })),
    ],
  };
  return { message, text, tool_calls: calls, ...rest };
}

/** The answer out of either API's JSON; undefined for a shape neither API answers. */
export function readAnswer(provider: AiProvider, body: unknown): AiAnswer | undefined {
  if (provider === 'anthropic') {
    const parsed = AnthropicAnswer.safeParse(body);
    if (!parsed.success) return undefined;
    const a = parsed.data;
    const calls = a.content.flatMap((b) =>
      b.type === 'tool_use' && b.id && b.name ? [{ id: b.id, name: b.name, args: b.input ?? {} }] : [],
    );
    return answer(a.content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join(''), calls, {
      model: a.model,
      usage: { input_tokens: a.usage.input_tokens, output_tokens: a.usage.output_tokens },
      finish_reason: a.stop_reason,
    });
  }
  const parsed = OpenAiAnswer.safeParse(body);
  if (!parsed.success) return undefined;
  const a = parsed.data;
  const choice = a.choices[0] as (typeof a.choices)[number];
  const calls = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    args: parseArguments(c.function.arguments),
  }));
  return answer(choice.message.content ?? '', calls, {
    model: a.model,
    usage: { input_tokens: a.usage.prompt_tokens, output_tokens: a.usage.completion_tokens },
    finish_reason: choice.finish_reason,
  });
}
