/**
 * An inbound chat message that cannot be read is never dropped in silence (DESIGN §9): the provider
 * is answered 200, nothing is stored or started, and one log line (number masked) and one counter
 * increment (`weft_chat_inbound_unreadable_total`) say so, for both providers.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createApp } from '@weft/api';
import { gatewaySignature } from '@weft/domain';
import { createLogger, metrics } from '@weft/telemetry';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const APP_SECRET = 'app-secret-unreadable';
const PHONE_NUMBER_ID = '106540352200001';
const ACCOUNT_SID = `AC${'7'.repeat(32)}`;
const AUTH_TOKEN = 'gateway-token-unreadable';
const GATEWAY_FROM = 'whatsapp:+14155238886';

let api: TestApi;
let app: ReturnType<typeof createApp>;
/** JSON lines the app under test logged. */
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  api = await createTestApi();
  app = createApp({
    db: api.db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 100_000,
      RATE_LIMIT_PER_ORG: 100_000,
      TRUST_PROXY_HOPS: 0,
    },
    temporalReady: async () => true,
    // The module secrets are encrypted by this app and read back by it.
    appKey: randomBytes(32),
    logger: createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    }),
    logError: () => {},
  });
  const modules = [
    {
      provider: 'cloud',
      business_account_id: '102290129300001',
      phone_number_id: PHONE_NUMBER_ID,
      access_token: 'token',
      app_secret: APP_SECRET,
      verify_token: 'verify',
    },
    { provider: 'gateway', account_sid: ACCOUNT_SID, auth_token: AUTH_TOKEN, from_number: GATEWAY_FROM },
  ];
  for (const body of modules) {
    const org = await api.createOrg(`Unreadable ${body.provider}`);
    const res = await app.request('/api/v1/modules/chat', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': org.key },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
});
afterAll(() => api.close());

function postCloud(messages: unknown[]) {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [{ field: 'messages', value: { metadata: { phone_number_id: PHONE_NUMBER_ID }, messages } }],
      },
    ],
  });
  return app.request('/api/webhooks/chat', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
    },
    body,
  });
}

function postGateway(fields: Record<string, string>) {
  const all = { AccountSid: ACCOUNT_SID, To: GATEWAY_FROM, ...fields };
  const url = 'http://localhost:3000/api/webhooks/chat/gateway';
  return app.request('/api/webhooks/chat/gateway', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': gatewaySignature(AUTH_TOKEN, url, Object.entries(all)),
    },
    body: new URLSearchParams(all).toString(),
  });
}

const counted = async (provider: string, reason: string) =>
  (await metrics.chatInboundUnreadable.get()).values.find(
    (v) => v.labels.provider === provider && v.labels.reason === reason,
  )?.value ?? 0;

const unreadableLines = () => lines.filter((l) => l.msg === 'inbound chat message could not be read');

async function nothingStored() {
  const [conversations] = await api.db.admin`select count(*)::int as n from chat_conversations`;
  const [executions] = await api.db.admin`select count(*)::int as n from executions`;
  expect([conversations?.n, executions?.n]).toEqual([0, 0]);
}

describe('unreadable inbound chat messages', () => {
  it('cloud: a sender that is no E.164 number is answered 200, logged masked and counted', async () => {
    const before = await counted('cloud', 'sender');
    const logged = unreadableLines().length;
    // Nine digits: too short for +1 (and for E.164's eight-digit minimum once the country is read).
    const res = await postCloud([
      { from: '155501234', id: 'wamid.UNREADABLE1', type: 'text', text: { body: 'hi' } },
    ]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 0, duplicates: 0 });
    expect(await counted('cloud', 'sender')).toBe(before + 1);
    const line = unreadableLines().slice(logged);
    expect(line).toEqual([
      expect.objectContaining({ level: 'warn', provider: 'cloud', reason: 'sender', from: '+15•••1234' }),
    ]);
    expect(JSON.stringify(line)).not.toContain('155501234');
    await nothingStored();
  });

  it('gateway: a bad sender and a message without its id are answered 200, each logged masked and counted', async () => {
    const badSender = await counted('gateway', 'sender');
    const incomplete = await counted('gateway', 'incomplete');
    const logged = unreadableLines().length;
    const xml = /<Response><\/Response>/;

    const first = await postGateway({
      MessageSid: `SM${'1'.repeat(32)}`,
      From: 'whatsapp:+1555012',
      Body: 'hi',
    });
    expect(first.status).toBe(200);
    expect(await first.text()).toMatch(xml);
    const second = await postGateway({ From: 'whatsapp:+15550100199', Body: 'no sid' });
    expect(second.status).toBe(200);

    expect(await counted('gateway', 'sender')).toBe(badSender + 1);
    expect(await counted('gateway', 'incomplete')).toBe(incomplete + 1);
    const got = unreadableLines().slice(logged);
    expect(got).toEqual([
      expect.objectContaining({ provider: 'gateway', reason: 'sender', from: '+15•5012' }),
      expect.objectContaining({ provider: 'gateway', reason: 'incomplete', from: '+1••••••0199' }),
    ]);
    expect(got.every((l) => typeof l.org_id === 'string')).toBe(true);
    expect(JSON.stringify(got)).not.toMatch(/1555012|15550100199/);
    await nothingStored();
  });
});
