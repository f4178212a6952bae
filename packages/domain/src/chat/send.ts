import { maskPhoneText, parseRetryAfter } from '@weft/nodes';
import type { OutboundHttpClient } from '../outbound-http/client';
import { OutboundHttpError } from '../outbound-http/errors';

/** A message for one person: free-form text, or an approved template with its variables in order. */
export interface ChatMessage {
  /** E.164 with `+`, in memory only. */
  to: string;
  text?: string;
  template?: { name: string; language: string; variables: string[] };
}

export interface ChatProviderDeps {
  http: OutboundHttpClient;
  cloudBaseUrl: string;
  gatewayBaseUrl: string;
  /** The gateway's Content API, where its templates and their WhatsApp approval are listed. */
  gatewayContentBaseUrl?: string;
}

export type ChatSendErrorCode =
  | 'window_closed'
  | 'template_not_approved'
  | 'invalid_phone'
  | 'provider_rate_limited'
  | 'module_auth_failed'
  | 'chat_provider_error';

/**
 * A provider's refusal, in our codes (DESIGN §9). `handedOver`: no answer came back, so the provider
 * may have the message and it must not be sent again.
 */
export class ChatSendError extends Error {
  override readonly name = 'ChatSendError';

  constructor(
    readonly code: ChatSendErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly handedOver = false,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const SEND_TIMEOUT_MS = 30_000;
const textDecoder = new TextDecoder();

/** The provider said yes but named no message: it may send it, so it must never be sent again. */
const acceptedWithoutId = () =>
  new ChatSendError(
    'chat_provider_error',
    'The chat provider accepted the message without naming it',
    false,
    true,
  );

/** Provider messages may quote the recipient: numbers are masked before they become a step's error. */
export function maskNumbersIn(text: string): string {
  return text.replace(/\+?\d[\d ()-]{5,}\d/g, (match) => {
    const digits = match.replace(/\D/g, '');
    return digits.length < 7 ? match : maskPhoneText(digits);
  });
}

/** Cloud (Graph API) error codes → ours; the codes, not the titles, are the contract. */
function cloudError(code: number, status: number, message: string, retryAfterMs?: number): ChatSendError {
  if (code === 131047) return new ChatSendError('window_closed', message, false);
  if ([132000, 132001, 132005, 132007, 132012, 132015, 132016].includes(code)) {
    return new ChatSendError('template_not_approved', message, false);
  }
  if ([131026, 131030, 131009].includes(code)) return new ChatSendError('invalid_phone', message, false);
  if ([130429, 131056, 131048, 131049].includes(code) || status === 429) {
    return new ChatSendError('provider_rate_limited', message, true, false, retryAfterMs);
  }
  if ([190, 10].includes(code) || (code >= 200 && code < 300) || status === 401 || status === 403) {
    return new ChatSendError(
      'module_auth_failed',
      `The chat module's access token was refused: ${message}`,
      false,
    );
  }
  if ([131000, 2, 1].includes(code) || status >= 500)
    return new ChatSendError('chat_provider_error', message, true);
  return new ChatSendError('chat_provider_error', message, false);
}

/** Gateway (Twilio) error codes → ours. */
function gatewayError(code: number, status: number, message: string, retryAfterMs?: number): ChatSendError {
  if (code === 63016) return new ChatSendError('window_closed', message, false);
  if (code === 21211 || code === 21614 || code === 63003)
    return new ChatSendError('invalid_phone', message, false);
  if (code >= 63020 && code <= 63030) return new ChatSendError('template_not_approved', message, false);
  if (code === 20429 || code === 63018 || status === 429) {
    return new ChatSendError('provider_rate_limited', message, true, false, retryAfterMs);
  }
  if (code === 20003 || status === 401 || status === 403) {
    return new ChatSendError(
      'module_auth_failed',
      `The chat module's auth token was refused: ${message}`,
      false,
    );
  }
  return new ChatSendError('chat_provider_error', message, status >= 500);
}

async function post(
  deps: ChatProviderDeps,
  request: { url: string; headers: Record<string, string>; body: string },
) {
  try {
    const response = await deps.http.request({ method: 'POST', ...request, timeoutMs: SEND_TIMEOUT_MS });
    let body: unknown = null;
    try {
      body = JSON.parse(textDecoder.decode(response.body));
    } catch {}
    return {
      status: response.status,
      body: body as Record<string, unknown> | null,
      headers: response.headers,
    };
  } catch (error) {
    if (!(error instanceof OutboundHttpError)) throw error;
    // Refused before connecting: nothing left. A timeout or a broken connection: it may have arrived.
    const before = error.code === 'ssrf_blocked' || error.code === 'invalid_url' || neverConnected(error);
    throw new ChatSendError(
      'chat_provider_error',
      `The chat provider could not be reached: ${error.message}`,
      before,
      !before,
    );
  }
}

/** The connection was never made (refused, no such host): the provider cannot have the message. */
function neverConnected(error: Error): boolean {
  for (
    let e: unknown = error.cause, depth = 0;
    e && depth < 4;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return true;
  }
  return false;
}

/** Sends through the organization's chat module (`cloud` or `gateway`); returns the provider's message id. */
export async function sendChatMessage(
  deps: ChatProviderDeps,
  module: Record<string, unknown>,
  message: ChatMessage,
): Promise<{ messageId: string }> {
  if (module.provider === 'gateway') {
    const sid = String(module.account_sid);
    const form = new URLSearchParams({ From: String(module.from_number), To: `whatsapp:${message.to}` });
    if (message.template) {
      form.set('ContentSid', message.template.name);
      form.set(
        'ContentVariables',
        JSON.stringify(Object.fromEntries(message.template.variables.map((v, i) => [String(i + 1), v]))),
      );
    } else {
      form.set('Body', message.text ?? '');
    }
    const answer = await post(deps, {
      url: new URL(
        `/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`,
        deps.gatewayBaseUrl,
      ).toString(),
      headers: {
        authorization: `Basic ${Buffer.from(`${sid}:${module.auth_token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    });
    if (answer.status >= 200 && answer.status < 300) {
      if (typeof answer.body?.sid === 'string') return { messageId: answer.body.sid };
      throw acceptedWithoutId();
    }
    throw gatewayError(
      Number(answer.body?.code ?? 0),
      answer.status,
      maskNumbersIn(String(answer.body?.message ?? `HTTP ${answer.status}`)),
      parseRetryAfter(answer.headers['retry-after']),
    );
  }
  const payload = message.template
    ? {
        type: 'template',
        template: {
          name: message.template.name,
          language: { code: message.template.language },
          ...(message.template.variables.length > 0
            ? {
                components: [
                  {
                    type: 'body',
                    parameters: message.template.variables.map((text) => ({ type: 'text', text })),
                  },
                ],
              }
            : {}),
        },
      }
    : { type: 'text', text: { body: message.text ?? '', preview_url: false } };
  const answer = await post(deps, {
    url: new URL(
      `/v21.0/${encodeURIComponent(String(module.phone_number_id))}/messages`,
      deps.cloudBaseUrl,
    ).toString(),
    headers: { authorization: `Bearer ${module.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: message.to.slice(1),
      ...payload,
    }),
  });
  const messages = answer.body?.messages as { id?: unknown }[] | undefined;
  if (answer.status >= 200 && answer.status < 300) {
    if (typeof messages?.[0]?.id === 'string') return { messageId: messages[0].id };
    throw acceptedWithoutId();
  }
  const error = (answer.body?.error ?? {}) as { code?: unknown; message?: unknown };
  throw cloudError(
    Number(error.code ?? 0),
    answer.status,
    maskNumbersIn(String(error.message ?? `HTTP ${answer.status}`)),
    parseRetryAfter(answer.headers['retry-after']),
  );
}
