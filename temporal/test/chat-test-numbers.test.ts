/**
 * Issue 20: +1 555 numbers (the ranges chat providers hand out as test business numbers, which the
 * phone metadata calls unassigned) were refused as `invalid_phone` before the provider was asked,
 * and an inbound message from one was answered 200 and dropped. For both providers, against their
 * local stand-in: inbound from a 555 number runs the chat workflow and records the conversation,
 * the run's reply (action.chat.send) and a template (action.chat.send_template) reach the provider,
 * and a number the provider says is no chat user fails with `invalid_phone` from the provider.
 */
import { createHmac } from 'node:crypto';
import { gatewaySignature } from '@weft/domain';
import { phoneHash } from '@weft/nodes';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatStandIn,
  CLOUD_ACCESS_TOKEN,
  NOT_A_CHAT_USER,
  PHONE_NUMBER_ID,
  startChatStandIn,
} from './chat-stand-in';

/** A +1 555 number: E.164 shape, a possible length for +1, unassigned in the phone metadata. */
const TEST_NUMBER = '+15550100199';
const APP_SECRET = 'cloud-app-secret-555';
const ACCOUNT_SID = `AC${'5'.repeat(32)}`;
const GATEWAY_TOKEN = 'gateway-token-555';
const GATEWAY_FROM = 'whatsapp:+14155238886';

let h: EngineHarness;
let stand: ChatStandIn;

interface Provider {
  org: { organizationId: string; key: string };
  /** Posts a signed inbound text message from `from` (E.164) as this provider does. */
  inbound(from: string, messageId: string, text: string): Promise<Response>;
  /** The recipient of the last message the stand-in accepted, as this provider's wire format has it. */
  lastRecipient(): string | undefined;
  /** An approved template of the stand-in, and variables that fit it. */
  template: { name: string; language: string; variables: string[] };
}
const providers = {} as Record<'cloud' | 'gateway', Provider>;

async function inboundCloud(from: string, messageId: string, text: string) {
  const wa = from.slice(1); // the cloud provider sends numbers without their `+`
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
              contacts: [{ profile: { name: 'Tester' }, wa_id: wa }],
              messages: [
                {
                  from: wa,
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
  const signature = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
  return h.app.request('/api/webhooks/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    body,
  });
}

async function inboundGateway(from: string, messageId: string, text: string) {
  const fields = {
    AccountSid: ACCOUNT_SID,
    MessageSid: messageId,
    From: `whatsapp:${from}`,
    To: GATEWAY_FROM,
    Body: text,
    ProfileName: 'Tester',
    WaId: from.slice(1),
    NumMedia: '0',
  };
  const url = 'http://localhost:3000/api/webhooks/chat/gateway';
  return h.app.request('/api/webhooks/chat/gateway', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': gatewaySignature(GATEWAY_TOKEN, url, Object.entries(fields)),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

async function createWorkflow(key: string, body: Record<string, unknown>) {
  const res = await h.request('POST', '/api/v1/workflows', { key, body: { status: 'active', ...body } });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.id as string;
}

async function runOnce(key: string, workflowId: string, input: Record<string, unknown>) {
  const started = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
    key,
    body: { input },
  });
  expect(started.status).toBe(202);
  return h.waitForExecution(key, ((await started.json()) as any).execution_id);
}

beforeAll(async () => {
  stand = await startChatStandIn();
  h = await createEngineHarness({
    ssrfAllowlist: ['127.0.0.0/8'],
    chatCloudBaseUrl: stand.url,
    chatGatewayBaseUrl: stand.url,
    chatGatewayContentBaseUrl: stand.url,
  });
  const cloudOrg = await h.createOrg('Cloud 555');
  const gatewayOrg = await h.createOrg('Gateway 555');
  const modules = [
    [
      cloudOrg,
      {
        provider: 'cloud',
        business_account_id: '102290129340398',
        phone_number_id: PHONE_NUMBER_ID,
        access_token: CLOUD_ACCESS_TOKEN,
        app_secret: APP_SECRET,
        verify_token: 'verify-555',
      },
    ],
    [
      gatewayOrg,
      { provider: 'gateway', account_sid: ACCOUNT_SID, auth_token: GATEWAY_TOKEN, from_number: GATEWAY_FROM },
    ],
  ] as const;
  for (const [org, body] of modules) {
    const configured = await h.request('PUT', '/api/v1/modules/chat', { key: org.key, body });
    expect(configured.status, await configured.clone().text()).toBe(200);
    const synced = await h.request('POST', '/api/v1/chat/templates/sync', { key: org.key });
    expect(synced.status, await synced.clone().text()).toBe(200);
  }
  providers.cloud = {
    org: cloudOrg,
    inbound: inboundCloud,
    lastRecipient: () => (stand.sent.at(-1)?.to ? `+${stand.sent.at(-1).to}` : undefined),
    template: { name: 'order_update', language: 'en_US', variables: ['Ada', 'A-7'] },
  };
  providers.gateway = {
    org: gatewayOrg,
    inbound: inboundGateway,
    lastRecipient: () => stand.gatewaySent.at(-1)?.To?.replace(/^whatsapp:/, ''),
    template: { name: `HX${'a'.repeat(32)}`, language: 'en', variables: ['Ada'] },
  };
}, 120_000);

afterAll(async () => {
  await h?.close();
  stand?.close();
});

describe.each(['cloud', 'gateway'] as const)('%s provider and +1 555 numbers', (name) => {
  it('an inbound message from a 555 number runs the chat workflow, whose reply reaches the provider', async () => {
    const { org, inbound, lastRecipient } = providers[name];
    const workflowId = await createWorkflow(org.key, {
      name: 'auto reply',
      trigger_type: 'chat',
      nodes: [
        {
          id: 'answer',
          type: 'action.chat.send',
          config: { to: '{{trigger.sender}}', message: 'Got it: {{trigger.text}}' },
        },
      ],
    });
    const answered = await inbound(
      TEST_NUMBER,
      name === 'cloud' ? 'wamid.555IN' : `SM${'9'.repeat(32)}`,
      'Hi',
    );
    expect(answered.status).toBe(200);

    const [conversation] = await h.db.admin`
      select count(*)::int as n from chat_conversations
      where organization_id = ${org.organizationId} and phone_hash = ${phoneHash(TEST_NUMBER)}`;
    expect(conversation?.n).toBe(1);
    const listed = await h.request('GET', `/api/v1/executions?workflow_id=${workflowId}`, { key: org.key });
    const runs = ((await listed.json()) as any).data;
    expect(runs).toHaveLength(1);
    const run = await h.waitForExecution(org.key, runs[0].id);
    expect(run.status).toBe('success');
    expect(run.steps[0].output).toMatchObject({ sent_as: 'text', to: '+1••••••0199' });
    expect(lastRecipient()).toBe(TEST_NUMBER);
  });

  it('action.chat.send_template to a 555 number reaches the provider', async () => {
    const { org, lastRecipient, template } = providers[name];
    const workflowId = await createWorkflow(org.key, {
      name: 'template to a test number',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'tpl',
          type: 'action.chat.send_template',
          config: {
            to: '{{trigger.to}}',
            template_name: template.name,
            language: template.language,
            variables: template.variables,
          },
        },
      ],
    });
    const run = await runOnce(org.key, workflowId, { to: '+1 555 010 0199' });
    expect(run.steps[0].output, JSON.stringify(run.steps[0])).toMatchObject({ sent_as: 'template' });
    expect(lastRecipient()).toBe(TEST_NUMBER);
  });

  it("a 555 number the provider says is no chat user fails with invalid_phone, in the provider's words", async () => {
    const { org, template } = providers[name];
    const workflowId = await createWorkflow(org.key, {
      name: 'template to no chat user',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'tpl',
          type: 'action.chat.send_template',
          config: {
            to: '{{trigger.to}}',
            template_name: template.name,
            language: template.language,
            variables: template.variables,
          },
        },
      ],
    });
    const run = await runOnce(org.key, workflowId, { to: NOT_A_CHAT_USER });
    // The step failed (the run is `partial`: a step's default on_failure is to continue).
    expect(run.steps[0].status).toBe('failed');
    const { error } = run.steps[0];
    expect(error.code).toBe('invalid_phone');
    // The provider's refusal, not ours (ours says "not a phone number in E.164 form"), number masked.
    expect(error.message).toMatch(name === 'cloud' ? /Message undeliverable/ : /could not find To address/);
    expect(error.message).not.toContain(NOT_A_CHAT_USER.slice(1));
  });
});
