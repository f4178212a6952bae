/**
 * The gateway chat provider end to end against its local stand-in: form-encoded inbound posts
 * verified by X-Twilio-Signature over the APP_URL-built address, status callbacks, and templates
 * synced from its Content API and sent by content SID.
 */
import { gatewaySignature } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStandIn, startChatStandIn } from './chat-stand-in';

let h: EngineHarness;
let provider: ChatStandIn;

beforeAll(async () => {
  provider = await startChatStandIn();
  h = await createEngineHarness({
    ssrfAllowlist: ['127.0.0.0/8'],
    chatGatewayBaseUrl: provider.url,
    chatGatewayContentBaseUrl: provider.url,
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  provider?.close();
});

describe('chat module, gateway provider', () => {
  it('gateway inbound: form posts verified by X-Twilio-Signature over the APP_URL address open the window once', async () => {
    const gatewayOrg = await h.createOrg('Gateway Org');
    const sid = `AC${'c'.repeat(32)}`;
    const configured = await h.request('PUT', '/api/v1/modules/chat', {
      key: gatewayOrg.key,
      body: {
        provider: 'gateway',
        account_sid: sid,
        auth_token: 'gateway-token',
        from_number: 'whatsapp:+14155238886',
      },
    });
    expect(configured.status).toBe(200);
    const created = await h.request('POST', '/api/v1/workflows', {
      key: gatewayOrg.key,
      body: {
        name: 'gateway chat',
        trigger_type: 'chat',
        status: 'active',
        nodes: [
          {
            id: 'n',
            type: 'action.transform',
            config: { assignments: [{ key: 'text', value: '{{trigger.text}}' }] },
          },
        ],
      },
    });
    const workflowId = ((await created.json()) as any).id;
    const post = (fields: Record<string, string>, token = 'gateway-token') => {
      const params = Object.entries(fields);
      const signature = gatewaySignature(token, 'http://localhost:3000/api/webhooks/chat/gateway', params);
      return h.app.request('/api/webhooks/chat/gateway', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        body: new URLSearchParams(fields).toString(),
      });
    };
    const message = {
      AccountSid: sid,
      MessageSid: `SM${'1'.repeat(32)}`,
      From: 'whatsapp:+14155550100',
      To: 'whatsapp:+14155238886',
      Body: 'Hola',
      ProfileName: 'Ada',
      WaId: '14155550100',
      NumMedia: '0',
    };
    expect((await post(message, 'wrong-token')).status).toBe(401);
    const accepted = await post(message);
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('content-type')).toMatch(/text\/xml/);
    expect((await post(message)).status).toBe(200); // the provider's retry
    // A status callback: accepted, starts nothing, moves no window.
    expect(
      (
        await post({
          AccountSid: sid,
          MessageSid: message.MessageSid,
          MessageStatus: 'delivered',
          To: message.To,
          From: message.From,
        })
      ).status,
    ).toBe(200);

    const list = async () =>
      (
        (await (
          await h.request('GET', `/api/v1/executions?workflow_id=${workflowId}`, { key: gatewayOrg.key })
        ).json()) as any
      ).data;
    // The webhook records the runs a message starts before it answers: once the posts above are
    // answered, the run is listed, and a duplicate (retry, status callback) would be too.
    const runs = await list();
    expect(runs).toHaveLength(1);
    const run = await h.waitForExecution(gatewayOrg.key, runs[0].id);
    expect(run.steps[0].output.text).toBe('Hola');
    const windows = await h.db
      .admin`select window_expires_at from chat_conversations where organization_id = ${gatewayOrg.organizationId}`;
    expect(windows).toHaveLength(1);

    // Templates of the gateway: synced from its Content API, sent by content SID with ContentVariables.
    const synced = await h.request('POST', '/api/v1/chat/templates/sync', { key: gatewayOrg.key });
    const templates = ((await synced.json()) as any).data;
    expect(templates.map((t: any) => [t.status, t.body_variables])).toEqual([
      ['APPROVED', 1],
      ['PENDING', 0],
    ]);
    const tplWorkflow = await h.request('POST', '/api/v1/workflows', {
      key: gatewayOrg.key,
      body: {
        name: 'gateway template',
        trigger_type: 'manual',
        status: 'active',
        nodes: [
          {
            id: 'tpl',
            type: 'action.chat.send_template',
            config: {
              to: '+14155550100',
              template_name: `HX${'a'.repeat(32)}`,
              language: 'en',
              variables: ['Ada'],
            },
          },
        ],
      },
    });
    const tplId = ((await tplWorkflow.json()) as any).id;
    const started = await h.request('POST', `/api/v1/workflows/${tplId}/execute`, {
      key: gatewayOrg.key,
      body: {},
    });
    const tplRun = await h.waitForExecution(gatewayOrg.key, ((await started.json()) as any).execution_id);
    expect(tplRun.steps[0].output).toMatchObject({
      sent_as: 'template',
      message_id: expect.stringMatching(/^SM/),
    });
    expect(provider.gatewaySent.at(-1)).toEqual({
      From: 'whatsapp:+14155238886',
      To: 'whatsapp:+14155550100',
      ContentSid: `HX${'a'.repeat(32)}`,
      ContentVariables: '{"1":"Ada"}',
    });
  });
});
