/**
 * One call to the organization's AI module (OpenAI-compatible or Anthropic), for every AI node:
 * the module is opened from the vault, the request made in the provider's wire format, and the
 * provider's failures mapped to retryable or final NodeRunErrors (429 and 5xx retry, honouring
 * Retry-After; a refused key or request is final), so Temporal owns the retries.
 */
import { type NodeRunContext, NodeRunError } from '../../runner';
import { parseRetryAfter } from '../http/retry-after';
import type { AiAnswer, AiRequest } from './messages';
import { type AiProvider, readAnswer, wireRequest } from './wire';

const AI_TIMEOUT_MS = 60_000;
const ANTHROPIC_VERSION = '2023-06-01';
const textDecoder = new TextDecoder();

export interface AiModule {
  provider: AiProvider;
  base_url: string;
  api_key: string;
  default_model: string;
}

/** The organization's AI module; a final `module_not_configured` naming `nodeType` when it has none. */
export async function openAiModule(ctx: NodeRunContext, nodeType: string): Promise<AiModule> {
  const module = (await ctx.openModule('ai')) as AiModule | null;
  if (!module) {
    throw new NodeRunError(
      'module_not_configured',
      `${nodeType} needs the AI module, which is not configured for this organization`,
      false,
    );
  }
  return module;
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

/** JSON out of a model's answer, which may wrap it in a Markdown code fence; throws when it is not JSON. */
export function parseJsonAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return JSON.parse(fenced ? (fenced[1] as string) : text);
}

/** Sends one request to the module and reads the answer. */
export async function callModel(
  ctx: NodeRunContext,
  module: AiModule,
  request: AiRequest,
): Promise<AiAnswer> {
  const wire = wireRequest(module.provider, module, request, ANTHROPIC_VERSION);
  const response = await ctx.http
    .request({
      method: 'POST',
      url: wire.url,
      headers: { ...wire.headers, 'content-type': 'application/json' },
      body: JSON.stringify(wire.body),
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
  const answer = readAnswer(module.provider, body);
  if (!answer)
    throw new NodeRunError('ai_provider_error', 'The AI provider answered without a message', false);
  return answer;
}
