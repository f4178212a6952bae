import { createHmac } from 'node:crypto';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUSINESS_ACCOUNT_ID,
  CHAT_ACCESS_TOKEN,
  type ChatFake,
  PHONE_NUMBER_ID,
  SMTP_PASSWORD,
  SMTP_USER,
  type SmtpFake,
  startChatFake,
  startSmtpFake,
} from './template-fakes';

// Decisions from outside the app: the signed link an approval e-mails (GET shows, only POST
// decides) and a chat reply naming the approval's code, from the number it was sent to.

const APP_SECRET = 'approval-notify-app-secret';
const APPROVER = '+4915112345678';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let smtp: SmtpFake;
let chat: ChatFake;

async function call(method: string, path: string, body?: unknown) {
  const res = await h.request(method, `/api/v1${path}`, { key: org.key, body });
  return { status: res.status, body: (await res.json()) as any };
}

async function runApproval(config: Record<string, unknown>) {
  const created = await call('POST', '/workflows', {
    name: `notify ${Math.random()}`,
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      { id: 'ask', type: 'action.approval', config: { title: 'Refund order {{trigger.order}}?', ...config } },
      { id: 'yes', type: 'action.transform', config: { assignments: [{ key: 'ok', value: 'yes' }] } },
      { id: 'no', type: 'action.transform', config: { assignments: [{ key: 'ok', value: 'no' }] } },
    ],
    edges: [
      { source: 'ask', target: 'yes', source_handle: 'approved' },
      { source: 'ask', target: 'no', source_handle: 'rejected' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = await call('POST', `/workflows/${created.body.id}/execute`, { input: { order: 'A-7' } });
  expect(started.status).toBe(202);
  const executionId = started.body.execution_id as string;
  await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
  const list = await call('GET', '/approvals?status=pending&per_page=100');
  return { executionId, approval: list.body.data.find((a: any) => a.execution_id === executionId) };
}

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

/** A signed inbound text message of the cloud chat provider, as its webhook delivers it. */
async function deliverChat(from: string, text: string, id: string) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: BUSINESS_ACCOUNT_ID,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: 'Approver' }, wa_id: from.slice(1) }],
              messages: [
                {
                  from: from.slice(1),
                  id,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const res = await h.app.request('/api/webhooks/chat', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
    },
    body,
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  [smtp, chat] = await Promise.all([startSmtpFake(), startChatFake([])]);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'], chatCloudBaseUrl: chat.url });
  org = await h.createOrg();
  const email = await call('PUT', '/modules/email', {
    host: '127.0.0.1',
    port: smtp.port,
    security: 'none',
    allow_insecure: true,
    username: SMTP_USER,
    password: SMTP_PASSWORD,
    from_email: 'automation@weft.example',
  });
  expect(email.status, JSON.stringify(email.body)).toBe(200);
  const chatModule = await call('PUT', '/modules/chat', {
    provider: 'cloud',
    business_account_id: BUSINESS_ACCOUNT_ID,
    phone_number_id: PHONE_NUMBER_ID,
    access_token: CHAT_ACCESS_TOKEN,
    app_secret: APP_SECRET,
    verify_token: 'approval-notify-verify',
  });
  expect(chatModule.status, JSON.stringify(chatModule.body)).toBe(200);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await Promise.all([smtp?.close(), chat?.close()]);
});

describe('an e-mailed signed link', () => {
  it('opens a confirm page that decides nothing; its POST decides once, as the recipient', async () => {
    const before = smtp.received.length;
    const { executionId, approval } = await runApproval({
      message: 'Parcel <b>damaged</b>',
      notify_email: 'boss@example.com, cfo@example.com',
    });
    await expect.poll(() => smtp.received.length - before).toBe(2);
    const mails = smtp.received.slice(before);
    const linkOf = (to: string) => {
      const mail = mails.find((m) => m.envelope.includes(to));
      expect(mail?.mail.subject).toBe('Approval needed: Refund order A-7?');
      const url = /http:\/\/localhost:3000(\/api\/approval-links\/\S+)/.exec(String(mail?.mail.text))?.[1];
      expect(url).toBeDefined();
      return url as string;
    };
    const boss = linkOf('boss@example.com');
    const cfo = linkOf('cfo@example.com');
    expect(boss).not.toBe(cfo);

    // A mail scanner prefetching the link (GET, any number of times) decides nothing.
    for (let i = 0; i < 2; i++) {
      const page = await h.app.request(boss);
      expect(page.status).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const text = await page.text();
      expect(text).toContain('Refund order A-7?');
      expect(text).toContain('Parcel &lt;b&gt;damaged&lt;/b&gt;');
      expect(text).toContain('<form method="post">');
    }
    expect((await call('GET', `/approvals/${approval.id}`)).body.status).toBe('pending');

    const forged = await h.app.request(`${boss.slice(0, -4)}AAAA`, { method: 'POST' });
    expect(forged.status).toBe(404);
    const bad = await h.app.request(boss, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=maybe',
    });
    expect(bad.status).toBe(422);

    const decided = await h.app.request(boss, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'reject', comment: 'Not this one' }).toString(),
    });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('This approval was rejected</strong> by boss@example.com');
    const done = await h.waitForExecution(org.key, executionId);
    expect(step(done, 'ask').output).toMatchObject({
      decision: 'reject',
      decided_by: 'boss@example.com',
      via: 'email',
      comment: 'Not this one',
    });
    expect(step(done, 'no').status).toBe('completed');

    // Single use: the other recipient's link (and the same one again) now only shows the decision.
    const late = await h.app.request(cfo, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve',
    });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('This approval was rejected');
    const shown = await h.app.request(cfo);
    expect(await shown.text()).not.toContain('<form');
  });
});

describe('a chat reply', () => {
  it('with the code, from the notified number, decides; from another number it is an ordinary message', async () => {
    // The chat module sends free text only inside the 24-hour window: the approver wrote first.
    await deliverChat(APPROVER, 'hi', `wamid.open-${Date.now()}`);
    const before = chat.sent.length;
    const { executionId, approval } = await runApproval({ notify_chat: APPROVER });
    await expect.poll(() => chat.sent.length - before).toBe(1);
    const sent = chat.sent[before]?.body;
    expect(`+${sent.to}`).toBe(APPROVER);
    const code = /"APPROVE ([A-Z0-9]{6})"/.exec(sent.text.body)?.[1] as string;
    expect(code).toMatch(/^[A-Z2-9]{6}$/);

    await deliverChat('+4915199999999', `approve ${code}`, `wamid.other-${Date.now()}`);
    await deliverChat(APPROVER, `approve ${code.toLowerCase()}: looks right`, `wamid.reply-${Date.now()}`);
    const done = await h.waitForExecution(org.key, executionId);
    expect(step(done, 'ask').output).toMatchObject({
      approval_id: approval.id,
      decision: 'approve',
      via: 'chat',
      comment: 'looks right',
    });
    expect(step(done, 'ask').output.decided_by).toMatch(/^\+49•+5678$/);
    expect(step(done, 'yes').status).toBe('completed');
    // The step's stored config has the number masked, like every chat number.
    expect(step(done, 'ask').resolved_config.notify_chat).not.toContain('12345678');
  });
});
