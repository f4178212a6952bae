import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NodeRunError, type NodeRunner } from '../runner';
import { EmailSendConfig } from './schema';

const Address = z.email();

/** Recipients as given (a list, or one string with commas), each a valid address. */
function recipients(field: string, value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const list = (Array.isArray(value) ? value : String(value).split(','))
    .map((v) => String(v).trim())
    .filter((v) => v !== '');
  for (const address of list) {
    if (!Address.safeParse(address).success) {
      throw new NodeRunError(
        'invalid_recipient',
        `${field}: "${address.slice(0, 100)}" is not an e-mail address`,
        false,
      );
    }
  }
  return list;
}

/** A header value from interpolated data: a line break would let data add headers, so it is refused. */
function headerValue(field: string, value: string | undefined): string | undefined {
  if (value !== undefined && /[\r\n]/.test(value)) {
    throw new NodeRunError('invalid_header', `${field} contains a line break; e-mail headers cannot`, false);
  }
  return value;
}

/**
 * action.email.send through the organization's e-mail module (SMTP), at most once per step: the
 * outbox row is claimed before the SMTP conversation and completed with the server's answer.
 */
export const emailSendRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = EmailSendConfig.parse(rawConfig);
    const to = recipients('to', config.to);
    if (to.length === 0) throw new NodeRunError('invalid_recipient', 'to: no recipient', false);
    const message = {
      to,
      cc: recipients('cc', config.cc),
      bcc: recipients('bcc', config.bcc),
      subject: headerValue('subject', String(config.subject)) as string,
      text: String(config.body),
      ...(config.html !== undefined ? { html: String(config.html) } : {}),
      ...(config.reply_to !== undefined
        ? { replyTo: recipients('reply_to', headerValue('reply_to', config.reply_to))[0] }
        : {}),
      messageId: `<${createHash('sha256').update(ctx.stepKey).digest('hex').slice(0, 32)}@weft>`,
    };
    const module = await ctx.openModule('email');
    if (!module) {
      throw new NodeRunError(
        'module_not_configured',
        'action.email.send needs the e-mail module, which is not configured for this organization',
        false,
      );
    }
    const claim = await ctx.outbox.claim('email');
    if (claim.state === 'sent') return claim.result;
    if (claim.state === 'unknown') {
      throw new NodeRunError(
        'send_outcome_unknown',
        'An earlier attempt of this step stopped while the SMTP server was taking the message; it is not sent again',
        false,
      );
    }
    try {
      const result = await ctx.sendMail(module, message);
      await ctx.outbox.complete(result);
      return result;
    } catch (error) {
      const e = error as {
        name?: string;
        code?: string;
        temporary?: boolean;
        handedOver?: boolean;
        message?: string;
      };
      if (e.name !== 'MailSendError') throw error;
      if (e.handedOver) {
        throw new NodeRunError(
          'send_outcome_unknown',
          `${e.message}; the message may have been taken, so it is not sent again`,
          false,
        );
      }
      await ctx.outbox.release(String(e.message));
      throw new NodeRunError(String(e.code), String(e.message), Boolean(e.temporary));
    }
  },
};
