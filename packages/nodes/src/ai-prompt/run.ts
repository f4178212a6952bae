import { z } from 'zod';
import { type NodeRunContext, NodeRunError, type NodeRunner } from '../runner';
import { parseRetryAfter } from '../shared/http/retry-after';
import { AiPromptConfig } from './schema';

const AI_TIMEOUT_MS = 60_000;
const ANTHROPIC_VERSION = '2023-06-01';
const textDecoder = new TextDecoder();

type Config = ReturnType<typeof AiPromptConfig.parse>;
interface AiModule {
  provider: 'openai' | 'anthropic';
  base_url: string;
  api_key: string;
  default_model: string;
}

interface Answer {
  text: string;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
  finish_reason: string | null;
}

/** The request each API shape expects (OpenAI chat completions, Anthropic Messages). */
function requestFor(
  module: AiModule,
  config: Config,
): { url: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const base = module.base_url.replace(/\/+$/, '');
  const model = config.model ?? module.default_model;
  if (module.provider === 'anthropic') {
    return {
      url: `${base}/v1/messages`,
      headers: { 'x-api-key': module.api_key, 'anthropic-version': ANTHROPIC_VERSION },
      body: {
        model,
        max_tokens: config.max_tokens,
        temperature: config.temperature,
        ...(config.system ? { system: config.system } : {}),
        messages: [{ role: 'user', content: config.prompt }],
      },
    };
  }
  return {
    url: `${base}/chat/completions`,
    headers: { authorization: `Bearer ${module.api_key}` },
    body: {
      model,
      max_tokens: config.max_tokens,
      temperature: config.temperature,
      messages: [
        ...(config.system ? [{ role: 'system', content: config.system }] : []),
        { role: 'user', content: config.prompt },
      ],
      ...(config.json ? { response_format: { type: 'json_object' } } : {}),
    },
  };
}

const OpenAiAnswer = z.object({
  model: z.string().default(''),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string() }),
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
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
  stop_reason: z.string().nullable().default(null),
  usage: z
    .object({ input_tokens: z.number().default(0), output_tokens: z.number().default(0) })
    .default({ input_tokens: 0, output_tokens: 0 }),
});

/** The answer out of either API's JSON; a shape neither API answers is a provider error. */
function answerOf(provider: AiModule['provider'], body: unknown): Answer {
  if (provider === 'anthropic') {
    const parsed = AnthropicAnswer.safeParse(body);
    if (!parsed.success)
      throw new NodeRunError('ai_provider_error', 'The AI provider answered without content', false);
    const a = parsed.data;
    return {
      text: a.content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join(''),
      model: a.model,
      usage: { input_tokens: a.usage.input_tokens, output_tokens: a.usage.output_tokens },
      finish_reason: a.stop_reason,
    };
  }
  const parsed = OpenAiAnswer.safeParse(body);
  if (!parsed.success)
    throw new NodeRunError('ai_provider_error', 'The AI provider answered without a message', false);
  const a = parsed.data;
  const choice = a.choices[0] as (typeof a.choices)[number];
  return {
    text: choice.message.content,
    model: a.model,
    usage: { input_tokens: a.usage.prompt_tokens, output_tokens: a.usage.completion_tokens },
    finish_reason: choice.finish_reason,
  };
}

function providerMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message);
    if (typeof message === 'string' && message !== '') return message.slice(0, 500);
  } catch {}
  return body.slice(0, 200);
}

/** JSON out of a model's answer, which may wrap it in a Markdown code fence. */
function parseJsonAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return JSON.parse(fenced ? (fenced[1] as string) : text);
}

async function send(ctx: NodeRunContext, module: AiModule, config: Config): Promise<Answer> {
  const request = requestFor(module, config);
  const response = await ctx.http
    .request({
      method: 'POST',
      url: request.url,
      headers: { ...request.headers, 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
      timeoutMs: AI_TIMEOUT_MS,
    })
    .catch((error: unknown) => {
      const code = (error as { code?: unknown }).code;
      if (!(error instanceof Error) || error.name !== 'OutboundHttpError') throw error;
      const retryable = code === 'timeout' || code === 'network_error';
      throw new NodeRunError(retryable ? 'ai_unreachable' : String(code), error.message, retryable);
    });
  const text = textDecoder.decode(response.body);
  const status = response.status;
  if (status === 429) {
    throw new NodeRunError(
      'provider_rate_limited',
      `The AI provider is rate limiting: ${providerMessage(text)}`,
      true,
      undefined,
      parseRetryAfter(response.headers['retry-after']),
    );
  }
  if (status >= 500) {
    throw new NodeRunError(
      'ai_provider_error',
      `The AI provider failed (HTTP ${status})`,
      true,
      undefined,
      parseRetryAfter(response.headers['retry-after']),
    );
  }
  if (status === 401 || status === 403) {
    throw new NodeRunError(
      'module_auth_failed',
      `The AI module's API key was refused (HTTP ${status}): check PUT /modules/ai`,
      false,
    );
  }
  if (status < 200 || status > 299) {
    throw new NodeRunError(
      'ai_request_refused',
      `The AI provider refused the request (HTTP ${status}): ${providerMessage(text)}`,
      false,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new NodeRunError('ai_provider_error', 'The AI provider answered something that is not JSON', false);
  }
  return answerOf(module.provider, body);
}

/** action.ai.prompt through the organization's AI module (OpenAI-compatible or Anthropic). */
export const aiPromptRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = AiPromptConfig.parse(rawConfig);
    const module = (await ctx.openModule('ai')) as AiModule | null;
    if (!module) {
      throw new NodeRunError(
        'module_not_configured',
        'action.ai.prompt needs the AI module, which is not configured for this organization',
        false,
      );
    }
    const answer = await send(ctx, module, config);
    if (!config.json) return answer;
    try {
      return { ...answer, json: parseJsonAnswer(answer.text) };
    } catch {
      throw new NodeRunError('ai_invalid_json', 'The AI answer is not valid JSON', false, {
        text: answer.text,
      });
    }
  },
};
