import { describe, expect, it } from 'vitest';
import { nodeRunFailure, runContext } from '../../test/run-context';
import type { NodeRunContext } from '../runner';
import { phoneHash } from '../shared/chat/phone';
import { chatSendRunner } from './run';

const TO = '+14155550100';
type Sent = Parameters<NodeRunContext['sendChat']>[1];

function chatError(
  code: string,
  extra: { retryable?: boolean; handedOver?: boolean; retryAfterMs?: number } = {},
) {
  return Object.assign(new Error(`provider said ${code}`), {
    name: 'ChatSendError',
    code,
    retryable: extra.retryable ?? false,
    handedOver: extra.handedOver ?? false,
    retryAfterMs: extra.retryAfterMs,
  });
}

function contextWith(windowOpen: boolean, provider: (message: Sent) => Promise<{ messageId: string }>) {
  const sent: Sent[] = [];
  const log: string[] = [];
  const ctx = runContext({
    openModule: async () => ({ provider: 'cloud' }),
    chatWindow: async (hash) => {
      expect(hash).toBe(phoneHash(TO));
      return { open: windowOpen };
    },
    sendChat: async (_module, message) => {
      sent.push(message);
      return provider(message);
    },
    outbox: {
      claim: async () => {
        log.push('claim');
        return { state: 'claimed' };
      },
      complete: async () => {
        log.push('complete');
      },
      release: async () => {
        log.push('release');
      },
    },
  });
  return { ctx, sent, log };
}

describe('chatSendRunner', () => {
  it('window open: sends text and answers the masked number, never the plain one', async () => {
    const { ctx, sent, log } = contextWith(true, async () => ({ messageId: 'wamid.1' }));
    const output = await chatSendRunner.run({ to: '+1 (415) 555-0100', message: 'Hi' }, ctx);
    expect(output).toEqual({ sent_as: 'text', message_id: 'wamid.1', to: '+1••••••0100' });
    expect(sent).toEqual([{ to: TO, text: 'Hi' }]);
    expect(log).toEqual(['claim', 'complete']);
  });

  it('window closed by our clock: the fallback template goes instead (language from name:language)', async () => {
    const { ctx, sent } = contextWith(false, async () => ({ messageId: 'wamid.2' }));
    const output = await chatSendRunner.run(
      { to: TO, message: 'Hi', fallback_template: 'follow_up:de' },
      ctx,
    );
    expect(output).toMatchObject({ sent_as: 'template', message_id: 'wamid.2' });
    expect(sent).toEqual([{ to: TO, template: { name: 'follow_up', language: 'de', variables: [] } }]);
  });

  it("window closed by the provider's answer: the fallback goes too, so the two clocks cannot disagree silently", async () => {
    const { ctx, sent } = contextWith(true, async (message) => {
      if (message.text) throw chatError('window_closed');
      return { messageId: 'wamid.3' };
    });
    const output = await chatSendRunner.run({ to: TO, message: 'Hi', fallback_template: 'follow_up' }, ctx);
    expect(output).toMatchObject({ sent_as: 'template', message_id: 'wamid.3' });
    expect(sent.map((m) => (m.text ? 'text' : m.template?.language))).toEqual(['text', 'en_US']);
  });

  it('window closed without a fallback: window_closed, final, nothing sent, claim released', async () => {
    const { ctx, sent, log } = contextWith(false, async () => ({ messageId: 'x' }));
    const error = await nodeRunFailure(chatSendRunner.run({ to: TO, message: 'Hi' }, ctx));
    expect([error.code, error.retryable]).toEqual(['window_closed', false]);
    expect(sent).toEqual([]);
    expect(log).toEqual(['claim', 'release']);
  });

  it('invalid_phone for a number that is not E.164, before anything else', async () => {
    const { ctx, log } = contextWith(true, async () => ({ messageId: 'x' }));
    const error = await nodeRunFailure(chatSendRunner.run({ to: '0151 2345', message: 'Hi' }, ctx));
    expect(error.code).toBe('invalid_phone');
    expect(error.message).toContain('to:');
    expect(log).toEqual([]);
  });

  it('rate limits retry after their wait; a lost answer is never resent', async () => {
    const limited = contextWith(true, async () => {
      throw chatError('provider_rate_limited', { retryable: true, retryAfterMs: 6000 });
    });
    const error = await nodeRunFailure(chatSendRunner.run({ to: TO, message: 'Hi' }, limited.ctx));
    expect([error.code, error.retryable, error.retryAfterMs]).toEqual(['provider_rate_limited', true, 6000]);
    expect(limited.log.at(-1)).toBe('release');

    const lost = contextWith(true, async () => {
      throw chatError('chat_provider_error', { retryable: true, handedOver: true });
    });
    const unknown = await nodeRunFailure(chatSendRunner.run({ to: TO, message: 'Hi' }, lost.ctx));
    expect([unknown.code, unknown.retryable]).toEqual(['send_outcome_unknown', false]);
    expect(lost.log).toEqual(['claim']);
  });
});
