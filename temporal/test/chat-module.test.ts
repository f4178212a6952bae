/**
 * The chat module end to end against a local stand-in of the cloud provider (Graph API JSON): the
 * handshake, a signed inbound message that opens the 24-hour window and runs a chat workflow, a
 * reply inside the window as text and, once the window has closed, as the fallback template; and no
 * plain phone number anywhere in PostgreSQL.
 */
import { createHmac } from 'node:crypto';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStandIn, CLOUD_ACCESS_TOKEN, PHONE_NUMBER_ID, startChatStandIn } from './chat-stand-in';

const APP_SECRET = 'cloud-app-secret-1234';
const SENDER = '16505551234';
let h: EngineHarness;
let org: { organizationId: string; key: string };
let provider: ChatStandIn;

beforeAll(async () => {
  provider = await startChatStandIn();
  const base = provider.url;
  h = await createEngineHarness({
    ssrfAllowlist: ['127.0.0.0/8'],
    chatCloudBaseUrl: base,
    chatGatewayBaseUrl: base,
    chatGatewayContentBaseUrl: base,
  });
  org = await h.createOrg();
  const configured = await h.request('PUT', '/api/v1/modules/chat', {
    key: org.key,
    body: {
      provider: 'cloud',
      business_account_id: '102290129340398',
      phone_number_id: PHONE_NUMBER_ID,
      access_token: CLOUD_ACCESS_TOKEN,
      app_secret: APP_SECRET,
      verify_token: 'my-verify-token',
    },
  });
  expect(configured.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await h?.close();
  provider?.close();
});

function inbound(messageId: string, text: string, secret = APP_SECRET) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: SENDER }],
              messages: [
                {
                  from: SENDER,
                  id: messageId,
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
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return h.app.request('/api/webhooks/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    body,
  });
}

async function createWorkflow(body: Record<string, unknown>) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: { status: 'active', ...body },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.id as string;
}

async function executionsOf(workflowId: string) {
  const res = await h.request('GET', `/api/v1/executions?workflow_id=${workflowId}`, { key: org.key });
  return ((await res.json()) as any).data as any[];
}

describe('chat module', () => {
  it('answers the handshake with the challenge as plain text, 403 for a wrong token', async () => {
    const ok = await h.app.request(
      '/api/webhooks/chat?hub.mode=subscribe&hub.verify_token=my-verify-token&hub.challenge=1158201444',
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await h.app.request(
      '/api/webhooks/chat?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1',
    );
    expect(wrong.status).toBe(403);
  });

  it('refuses a forged signature with 401 and stores nothing', async () => {
    const res = await inbound('wamid.FORGED', 'hello', 'not-the-secret');
    expect(res.status).toBe(401);
    const rows = await h.db.admin`select count(*)::int as n from chat_conversations`;
    expect(rows[0]?.n).toBe(0);
  });

  it('a signed message opens the window and runs the chat workflows once, even when delivered twice', async () => {
    const workflowId = await createWorkflow({
      name: 'on chat',
      trigger_type: 'chat',
      nodes: [
        {
          id: 'note',
          type: 'action.transform',
          config: {
            assignments: [
              { key: 'said', value: '{{trigger.profile_name}} said {{trigger.text}} from {{trigger.from}}' },
            ],
          },
        },
      ],
    });
    const first = await inbound('wamid.IN1', 'Does it come in blue?');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: 1, duplicates: 0 });
    const again = await inbound('wamid.IN1', 'Does it come in blue?');
    expect(await again.json()).toEqual({ received: 0, duplicates: 1 });
    // A newer message, then the provider redelivers the older one: the older starts nothing again.
    expect(await (await inbound('wamid.IN1B', 'And in red?')).json()).toEqual({ received: 1, duplicates: 0 });
    expect(await (await inbound('wamid.IN1', 'Does it come in blue?')).json()).toEqual({
      received: 0,
      duplicates: 1,
    });

    // The webhook records the runs a message starts before it answers: once the deliveries above
    // are answered, both runs are listed, and a run of a redelivery would be too.
    const runs = await executionsOf(workflowId);
    expect(runs).toHaveLength(2);
    const settled = await Promise.all(runs.map((r: any) => h.waitForExecution(org.key, r.id)));
    const run = settled.find((e: any) => e.steps[0]?.output?.said?.includes('blue')) as any;
    expect(run).toMatchObject({ status: 'success', trigger: 'chat', event: 'chat.message_received' });
    expect(run.steps[0].output.said).toBe('Sheena Nelson said Does it come in blue? from +1••••••1234');
  });

  it('a chat workflow replies to the sender, whose number reaches the run only (not PostgreSQL)', async () => {
    const replyId = await createWorkflow({
      name: 'auto reply',
      trigger_type: 'chat',
      nodes: [
        {
          id: 'answer',
          type: 'action.chat.send',
          config: { to: '{{trigger.sender}}', message: 'Thanks, {{trigger.profile_name}}!' },
        },
        // A node that copies the number: its stored output shows the masked form instead.
        {
          id: 'copy',
          type: 'action.transform',
          config: { assignments: [{ key: 'who', value: 'from {{trigger.sender}}' }] },
        },
      ],
    });
    // An event listener (not a chat workflow) gets no sender: only chat runs carry it.
    const listenerId = await createWorkflow({
      name: 'listener',
      trigger_type: 'event',
      trigger_config: { event: 'chat.message_received' },
      nodes: [
        {
          id: 'peek',
          type: 'action.transform',
          config: { assignments: [{ key: 's', value: 'x{{trigger.sender}}' }] },
        },
      ],
    });
    const before = provider.sent.length;
    expect((await inbound('wamid.IN2', 'Anyone there?')).status).toBe(200);
    // Until both runs have ended (recorded before the webhook answered): the reply is sent and
    // every step, the copy after it included, is stored.
    const runs = [...(await executionsOf(replyId)), ...(await executionsOf(listenerId))];
    expect(runs).toHaveLength(2);
    await Promise.all(runs.map((r: any) => h.waitForExecution(org.key, r.id)));
    expect(provider.sent.slice(before)).toEqual([
      expect.objectContaining({
        to: SENDER,
        type: 'text',
        text: { body: 'Thanks, Sheena Nelson!', preview_url: false },
      }),
    ]);
    const dump = JSON.stringify([
      await h.db.admin`select trigger_payload from executions`,
      await h.db.admin`select output, resolved_config from execution_steps`,
    ]);
    expect(dump).not.toContain(SENDER);
    expect(dump).toContain('from +1••••••1234');
  });

  it('replies as text inside the window and as the fallback template after it closed; no number stored', async () => {
    const workflowId = await createWorkflow({
      name: 'reply',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'reply',
          type: 'action.chat.send',
          config: { to: '{{trigger.to}}', message: 'Yes, in blue too', fallback_template: 'follow_up' },
        },
      ],
    });
    const run = async () => {
      const started = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
        key: org.key,
        body: { input: { to: `+${SENDER}` } },
      });
      const execution = await h.waitForExecution(org.key, ((await started.json()) as any).execution_id);
      return execution.steps.find((s: any) => s.node_id === 'reply');
    };
    const inside = await run();
    expect(inside.output).toEqual({
      sent_as: 'text',
      message_id: expect.stringMatching(/^wamid\.FAKE\d+$/),
      to: '+1••••••1234',
    });
    expect(inside.resolved_config.to).not.toContain(SENDER);
    expect(provider.sent.at(-1)).toMatchObject({
      to: SENDER,
      type: 'text',
      text: { body: 'Yes, in blue too' },
    });

    // A status callback for that message: recorded on its outbox row, the window untouched.
    const [windowBefore] = await h.db
      .admin`select window_expires_at from chat_conversations where organization_id = ${org.organizationId}`;
    const statusBody = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: PHONE_NUMBER_ID },
                statuses: [
                  { id: inside.output.message_id, status: 'delivered', timestamp: '1', recipient_id: SENDER },
                ],
              },
            },
          ],
        },
      ],
    });
    const callback = await h.app.request('/api/webhooks/chat', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(statusBody).digest('hex')}`,
      },
      body: statusBody,
    });
    expect(await callback.json()).toEqual({ received: 0, duplicates: 0 });
    const [outboxRow] = await h.db
      .admin`select delivery_status from message_outbox where result->>'message_id' = ${inside.output.message_id}`;
    expect(outboxRow?.delivery_status).toBe('delivered');
    const [windowAfter] = await h.db
      .admin`select window_expires_at from chat_conversations where organization_id = ${org.organizationId}`;
    expect(windowAfter).toEqual(windowBefore);

    // 25 hours later, as far as the window is concerned.
    await h.db.admin`update chat_conversations set window_expires_at = now() - interval '1 hour'`;
    const outside = await run();
    expect(outside.output).toMatchObject({
      sent_as: 'template',
      message_id: expect.stringMatching(/^wamid\.FAKE\d+$/),
    });
    expect(provider.sent.at(-1)).toMatchObject({
      to: SENDER,
      type: 'template',
      template: { name: 'follow_up', language: { code: 'en_US' } },
    });

    // Every chat table and every step: the sender's number is nowhere (the manual run's own input
    // is the caller's data, so executions.trigger_payload of that workflow is left out).
    const dump = JSON.stringify([
      await h.db.admin`select * from chat_conversations`,
      await h.db.admin`select * from message_outbox`,
      await h.db.admin`select * from organization_modules`,
      await h.db.admin`select output, resolved_config, error from execution_steps`,
      await h.db.admin`select trigger_payload from executions where trigger = 'chat'`,
    ]);
    expect(dump).not.toContain(SENDER);
    expect(dump).not.toContain(APP_SECRET);
  });

  it('syncs templates (every page), sends only approved ones with the right variables, syncs once for an unknown one', async () => {
    const synced = await h.request('POST', '/api/v1/chat/templates/sync', { key: org.key });
    expect(synced.status, await synced.clone().text()).toBe(200);
    const list = ((await synced.json()) as any).data;
    expect(list.map((t: any) => [t.name, t.status, t.body_variables])).toEqual([
      ['order_update', 'APPROVED', 2],
      ['promo', 'PENDING', 0],
    ]);
    expect(
      ((await (await h.request('GET', '/api/v1/chat/templates', { key: org.key })).json()) as any).data,
    ).toHaveLength(2);

    const send = async (template: string, variables: string[]) => {
      const workflowId = await createWorkflow({
        name: `template ${template}`,
        trigger_type: 'manual',
        nodes: [
          {
            id: 'tpl',
            type: 'action.chat.send_template',
            config: { to: '{{trigger.to}}', template_name: template, language: 'en_US', variables },
          },
        ],
      });
      const started = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
        key: org.key,
        body: { input: { to: `+${SENDER}` } },
      });
      const execution = await h.waitForExecution(org.key, ((await started.json()) as any).execution_id);
      return execution.steps.find((s: any) => s.node_id === 'tpl');
    };

    const ok = await send('order_update', ['Ada', 'A-7']);
    expect(ok.output).toMatchObject({ sent_as: 'template' });
    expect(provider.sent.at(-1)?.template).toEqual({
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ada' },
            { type: 'text', text: 'A-7' },
          ],
        },
      ],
    });

    const before = provider.sent.length;
    expect((await send('promo', [])).error.code).toBe('template_not_approved');
    expect((await send('order_update', ['Ada'])).error.code).toBe('template_variables');
    const listsBefore = provider.templateLists();
    expect((await send('ghost', [])).error.code).toBe('template_not_approved');
    // Unknown: synced once (two pages) before refusing.
    expect(provider.templateLists() - listsBefore).toBe(2);
    expect(provider.sent.length).toBe(before);
  });
});
