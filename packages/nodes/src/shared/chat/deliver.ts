import { type NodeRunContext, NodeRunError } from '../../runner';
import { type PhoneIdentity, phoneIdentity } from './phone';

type ChatMessage = Parameters<NodeRunContext['sendChat']>[1];
type ChatError = Error & { code: string; retryable: boolean; handedOver: boolean; retryAfterMs?: number };

const isChatError = (error: unknown): error is ChatError =>
  error instanceof Error && error.name === 'ChatSendError';

/** The recipient as E.164, or a final `invalid_phone` naming the field. */
export function recipientOf(to: string): PhoneIdentity {
  const identity = phoneIdentity(to);
  if (!identity) {
    throw new NodeRunError(
      'invalid_phone',
      // The value is not echoed: it may be most of a number.
      'to: not a phone number in E.164 form (+, country code, 8-15 digits in all)',
      false,
    );
  }
  return identity;
}

/** The chat module, or a final `module_not_configured`. */
export async function chatModuleOf(ctx: NodeRunContext, nodeType: string): Promise<Record<string, unknown>> {
  const module = await ctx.openModule('chat');
  if (!module) {
    throw new NodeRunError(
      'module_not_configured',
      `${nodeType} needs the chat module, which is not configured for this organization`,
      false,
    );
  }
  return module;
}

/**
 * Sends at most once per step (DESIGN §12.1): `attempt` runs only when the outbox claim is new; a
 * completed earlier attempt's output is answered again, an interrupted one is never resent.
 */
export async function sendOnce(ctx: NodeRunContext, attempt: () => Promise<Record<string, unknown>>) {
  const claim = await ctx.outbox.claim('chat');
  if (claim.state === 'sent') return claim.result;
  if (claim.state === 'unknown') {
    throw new NodeRunError(
      'send_outcome_unknown',
      'An earlier attempt of this step stopped while the provider had the message; it is not sent again',
      false,
    );
  }
  try {
    const output = await attempt();
    await ctx.outbox.complete(output);
    return output;
  } catch (error) {
    if (error instanceof NodeRunError) {
      await ctx.outbox.release(error.message);
      throw error;
    }
    if (!isChatError(error)) throw error;
    if (error.handedOver) {
      throw new NodeRunError(
        'send_outcome_unknown',
        `${error.message}; the provider may have the message, so it is not sent again`,
        false,
      );
    }
    await ctx.outbox.release(error.message);
    throw new NodeRunError(error.code, error.message, error.retryable, undefined, error.retryAfterMs);
  }
}

/** One provider call; a window-closed refusal comes back as `window_closed` instead of an error. */
export async function trySend(
  ctx: NodeRunContext,
  module: Record<string, unknown>,
  message: ChatMessage,
): Promise<{ messageId: string } | 'window_closed'> {
  try {
    return await ctx.sendChat(module, message);
  } catch (error) {
    if (isChatError(error) && error.code === 'window_closed') return 'window_closed';
    throw error;
  }
}
