/**
 * The e-mail module end to end against a real SMTP server process on loopback (smtp-server): the
 * message that arrives is parsed and checked; a temporary refusal is retried and the message still
 * arrives once; a step never sends twice; CR/LF from data never reaches a header.
 */
import type { AddressInfo } from 'node:net';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let smtp: SMTPServer;
const received: { envelope: string[]; mail: ParsedMail }[] = [];
/** DATA answers to give before accepting (e.g. 451 = try again later). */
const refusals: number[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'ops' && auth.password === 'smtp-pass-1234')
        return callback(null, { user: 'ops' });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const code = refusals.shift();
        if (code) {
          const error = Object.assign(new Error('Try again later'), { responseCode: code });
          return callback(error);
        }
        received.push({
          envelope: session.envelope.rcptTo.map((r) => r.address),
          mail: await simpleParser(Buffer.concat(chunks)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
  const configured = await h.request('PUT', '/api/v1/modules/email', {
    key: org.key,
    body: {
      host: '127.0.0.1',
      port,
      security: 'none',
      allow_insecure: true,
      username: 'ops',
      password: 'smtp-pass-1234',
      from_email: 'ops@weft.example',
      from_name: 'Weft Ops',
    },
  });
  expect(configured.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => smtp?.close(resolve));
});

async function send(config: Record<string, unknown>, input: Record<string, unknown> = {}) {
  const created = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: {
      name: 'mail',
      trigger_type: 'manual',
      status: 'active',
      nodes: [{ id: 'mail', type: 'action.email.send', config }],
    },
  });
  const workflow = (await created.json()) as any;
  expect(created.status, JSON.stringify(workflow)).toBe(201);
  const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key: org.key,
    body: { input },
  });
  const execution = await h.waitForExecution(
    org.key,
    ((await started.json()) as any).execution_id,
    undefined,
    30_000,
  );
  return { execution, step: execution.steps.find((s: any) => s.node_id === 'mail') };
}

describe('action.email.send', () => {
  it('delivers a message with both parts, a non-ASCII subject, cc, bcc and reply-to', async () => {
    const before = received.length;
    const { execution, step } = await send(
      {
        to: '{{trigger.email}}',
        cc: ['cc@example.com'],
        bcc: 'hidden@example.com',
        subject: 'Grüße, {{trigger.name}} ✓',
        body: 'Hello {{trigger.name}}',
        html: '<p>Hello <b>{{trigger.name}}</b></p>',
        reply_to: 'support@weft.example',
      },
      { email: 'ada@example.com', name: 'Ada' },
    );
    expect(execution.status).toBe('success');
    expect(step.output).toMatchObject({
      message_id: expect.stringMatching(/^<[0-9a-f]{32}@weft>$/),
      accepted: ['ada@example.com', 'cc@example.com', 'hidden@example.com'],
      rejected: [],
    });
    expect(received.length).toBe(before + 1);
    const { envelope, mail } = received.at(-1) as (typeof received)[number];
    expect(envelope.sort()).toEqual(['ada@example.com', 'cc@example.com', 'hidden@example.com']);
    expect(mail.subject).toBe('Grüße, Ada ✓');
    expect(mail.text?.trim()).toBe('Hello Ada');
    expect(mail.html).toContain('<b>Ada</b>');
    expect(mail.from?.value[0]).toMatchObject({ address: 'ops@weft.example', name: 'Weft Ops' });
    expect(mail.replyTo?.value[0]?.address).toBe('support@weft.example');
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.messageId).toBe(step.output.message_id);
  });

  it('retries a temporary refusal (451) and the message arrives once', async () => {
    refusals.push(451);
    const before = received.length;
    const { execution } = await send({ to: 'retry@example.com', subject: 'Once', body: 'only once' });
    expect(execution.status).toBe('success');
    expect(received.length).toBe(before + 1);
  });

  it('a permanent refusal (550) fails the step finally with smtp_rejected', async () => {
    refusals.push(550);
    const before = received.length;
    const { step } = await send({ to: 'nobody@example.com', subject: 'No', body: 'no' });
    expect(step.status).toBe('failed');
    expect(step.error.code).toBe('smtp_rejected');
    expect(received.length).toBe(before);
  });

  it('refuses CR/LF from data in a header and bad addresses, sending nothing', async () => {
    const before = received.length;
    const injected = await send(
      { to: 'victim@example.com', subject: '{{trigger.subject}}', body: 'x' },
      { subject: 'Hello\r\nBcc: everyone@example.com' },
    );
    expect(injected.step.error.code).toBe('invalid_header');
    const bad = await send({ to: '{{trigger.to}}', subject: 'x', body: 'x' }, { to: 'not an address' });
    expect(bad.step.error.code).toBe('invalid_recipient');
    expect(received.length).toBe(before);
  });
});
