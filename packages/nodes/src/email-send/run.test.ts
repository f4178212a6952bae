import { describe, expect, it } from 'vitest';
import { nodeRunFailure, runContext } from '../../test/run-context';
import { emailSendRunner } from './run';

const MODULE = { host: 'smtp.example.com', port: 465, security: 'tls', from_email: 'ops@example.com' };
const CONFIG = { to: 'a@example.com, b@example.com', subject: 'Hi', body: 'Hello' };

function mailError(fields: { code: string; temporary: boolean; handedOver: boolean }) {
  return Object.assign(new Error(`smtp said ${fields.code}`), { name: 'MailSendError', ...fields });
}

function contextWith(claim: 'claimed' | 'sent' | 'unknown', send: () => Promise<unknown>) {
  const log: string[] = [];
  const ctx = runContext({
    stepKey: 'exec:mail',
    openModule: async () => MODULE,
    outbox: {
      claim: async () => {
        log.push('claim');
        return claim === 'sent'
          ? { state: 'sent', result: { message_id: '<stored@weft>' } }
          : { state: claim };
      },
      complete: async () => {
        log.push('complete');
      },
      release: async () => {
        log.push('release');
      },
    },
    sendMail: async (_module, message) => {
      log.push(`send ${message.to.join(' ')}`);
      return send() as never;
    },
  });
  return { ctx, log };
}

describe('emailSendRunner', () => {
  it('claims, sends, then completes; the Message-ID is derived from the step key', async () => {
    const result = { message_id: '<x@weft>', accepted: ['a@example.com', 'b@example.com'], rejected: [] };
    let messageId = '';
    const { ctx, log } = contextWith('claimed', async () => result);
    ctx.sendMail = async (_m, message) => {
      log.push('send');
      messageId = message.messageId;
      return result;
    };
    expect(await emailSendRunner.run(CONFIG, ctx)).toEqual(result);
    expect(log).toEqual(['claim', 'send', 'complete']);
    expect(messageId).toMatch(/^<[0-9a-f]{32}@weft>$/);
  });

  it('answers the stored result and sends nothing when an earlier attempt completed', async () => {
    const { ctx, log } = contextWith('sent', async () => ({}));
    expect(await emailSendRunner.run(CONFIG, ctx)).toEqual({ message_id: '<stored@weft>' });
    expect(log).toEqual(['claim']);
  });

  it('never sends again after an attempt that died mid-send (unknown), nor after a handed-over failure', async () => {
    const unknown = contextWith('unknown', async () => ({}));
    const error = await nodeRunFailure(emailSendRunner.run(CONFIG, unknown.ctx));
    expect([error.code, error.retryable]).toEqual(['send_outcome_unknown', false]);
    expect(unknown.log).toEqual(['claim']);

    const handedOver = contextWith('claimed', async () => {
      throw mailError({ code: 'smtp_unreachable', temporary: true, handedOver: true });
    });
    const lost = await nodeRunFailure(emailSendRunner.run(CONFIG, handedOver.ctx));
    expect([lost.code, lost.retryable]).toEqual(['send_outcome_unknown', false]);
    expect(handedOver.log).not.toContain('release');
  });

  it('releases the claim when the server refused before taking the message: temporary retries, permanent does not', async () => {
    for (const [code, temporary] of [
      ['smtp_temporary', true],
      ['smtp_rejected', false],
      ['module_auth_failed', false],
    ] as const) {
      const { ctx, log } = contextWith('claimed', async () => {
        throw mailError({ code, temporary, handedOver: false });
      });
      const error = await nodeRunFailure(emailSendRunner.run(CONFIG, ctx));
      expect([error.code, error.retryable]).toEqual([code, temporary]);
      expect(log.at(-1)).toBe('release');
    }
  });

  it('refuses line breaks in headers and invalid addresses before claiming anything', async () => {
    const { ctx, log } = contextWith('claimed', async () => ({}));
    const header = await nodeRunFailure(
      emailSendRunner.run({ ...CONFIG, subject: 'Hi\nBcc: x@example.com' }, ctx),
    );
    expect(header.code).toBe('invalid_header');
    const replyTo = await nodeRunFailure(
      emailSendRunner.run({ ...CONFIG, reply_to: 'a@example.com\r\nX: y' }, ctx),
    );
    expect(replyTo.code).toBe('invalid_header');
    const address = await nodeRunFailure(
      emailSendRunner.run({ ...CONFIG, cc: ['fine@example.com', 'nope'] }, ctx),
    );
    expect([address.code, address.message]).toEqual([
      'invalid_recipient',
      'cc: "nope" is not an e-mail address',
    ]);
    expect(log).toEqual([]);
  });
});
