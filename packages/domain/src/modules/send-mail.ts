import { isIP } from 'node:net';
import type { NodeRunContext } from '@weft/nodes/runners';
import { createTransport } from 'nodemailer';
import { OutboundHttpError } from '../outbound-http/errors';
import { resolveAllowedHost } from '../outbound-http/resolve-host';

/** A message as the e-mail node built it (addresses checked, headers free of CR/LF). */
export type MailMessage = Parameters<NodeRunContext['sendMail']>[1];

/**
 * Why a send failed. `handedOver`: the server may have taken the message (the connection died after
 * the data was sent), so it must not be sent again; otherwise it was refused before and may be retried
 * when `temporary`.
 */
export class MailSendError extends Error {
  override readonly name = 'MailSendError';

  constructor(
    readonly code: 'module_auth_failed' | 'smtp_temporary' | 'smtp_rejected' | 'smtp_unreachable',
    message: string,
    readonly temporary: boolean,
    readonly handedOver: boolean,
  ) {
    super(message);
  }
}

const SMTP_TIMEOUT_MS = 30_000;

/** Sends one message through the organization's SMTP module, to the SSRF-checked address of its host. */
export async function sendMail(
  module: Record<string, unknown>,
  message: MailMessage,
  allowlist: readonly string[],
): Promise<{ message_id: string; accepted: string[]; rejected: string[] }> {
  const host = String(module.host);
  let address: string;
  try {
    address = await resolveAllowedHost(host, allowlist);
  } catch (error) {
    if (!(error instanceof OutboundHttpError)) throw error;
    throw new MailSendError(
      'smtp_unreachable',
      `SMTP ${host}: ${error.message}`,
      error.code === 'network_error',
      false,
    );
  }
  const transport = createTransport({
    host: address,
    port: Number(module.port),
    secure: module.security === 'tls',
    requireTLS: module.security === 'starttls',
    ignoreTLS: module.security === 'none',
    tls: isIP(host) === 0 ? { servername: host } : {},
    auth: module.username
      ? { user: String(module.username), pass: String(module.password ?? '') }
      : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  try {
    const from = module.from_name
      ? { name: String(module.from_name), address: String(module.from_email) }
      : String(module.from_email);
    const info = await transport.sendMail({
      from,
      to: message.to,
      cc: message.cc,
      bcc: message.bcc,
      subject: message.subject,
      text: message.text,
      ...(message.html !== undefined ? { html: message.html } : {}),
      ...(message.replyTo !== undefined ? { replyTo: message.replyTo } : {}),
      messageId: message.messageId,
    });
    return {
      message_id: info.messageId,
      accepted: (info.accepted ?? []).map(String),
      rejected: (info.rejected ?? []).map(String),
    };
  } catch (error) {
    throw classify(error, host);
  } finally {
    transport.close();
  }
}

function classify(error: unknown, host: string): MailSendError {
  const e = error as { code?: string; command?: string; responseCode?: number; message?: string };
  const what = `SMTP ${host}`;
  if (e.code === 'EAUTH') {
    return new MailSendError(
      'module_auth_failed',
      `${what}: the login was refused (check PUT /modules/email)`,
      false,
      false,
    );
  }
  if (typeof e.responseCode === 'number') {
    // The server answered: it did not take the message. 4xx is worth another try, 5xx is final.
    const temporary = e.responseCode >= 400 && e.responseCode < 500;
    return new MailSendError(
      temporary ? 'smtp_temporary' : 'smtp_rejected',
      `${what} answered ${e.responseCode}: ${String(e.message ?? '').slice(0, 300)}`,
      temporary,
      false,
    );
  }
  // No answer: if the message data was on its way, the server may have it.
  const handedOver = e.command === 'DATA';
  return new MailSendError('smtp_unreachable', `${what}: ${String(e.message ?? error)}`, true, handedOver);
}
