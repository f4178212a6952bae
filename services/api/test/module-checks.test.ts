/**
 * POST /modules/{name}/test against local stand-ins that speak each provider's wire format: the
 * chat providers' account endpoints, the AI model lists and a real SMTP server on loopback.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApi, type TestApi } from '@weft/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

const GOOD = 'good-token-0000';
const SID = `AC${'b'.repeat(32)}`;
let api: TestApi;
let org: { organizationId: string; key: string };
let providers: Server;
let providersUrl: string;
let smtp: SMTPServer;
let smtpPort: number;
const seen: { path: string; headers: IncomingMessage['headers'] }[] = [];

function startProviders(): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', 'http://fake');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v21.0/106540352242922') {
      if (req.headers.authorization !== `Bearer ${GOOD}`) {
        return json(401, {
          error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 },
        });
      }
      return json(200, { display_phone_number: '+1 555 0100', verified_name: 'Acme', id: '106540352242922' });
    }
    if (url.pathname === `/2010-04-01/Accounts/${SID}.json`) {
      const expected = `Basic ${Buffer.from(`${SID}:${GOOD}`).toString('base64')}`;
      if (req.headers.authorization !== expected)
        return json(401, { code: 20003, message: 'Authenticate', status: 401 });
      return json(200, { sid: SID, status: 'active' });
    }
    if (url.pathname === '/openai/v1/models') {
      if (req.headers.authorization !== `Bearer ${GOOD}`)
        return json(401, { error: { message: 'Incorrect API key' } });
      return json(200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] });
    }
    if (url.pathname === '/anthropic/v1/models') {
      if (req.headers['x-api-key'] !== GOOD || !req.headers['anthropic-version']) {
        return json(401, {
          type: 'error',
          error: { type: 'authentication_error', message: 'invalid x-api-key' },
        });
      }
      return json(200, { data: [{ id: 'claude-sonnet-4', type: 'model' }], has_more: false });
    }
    json(404, { error: 'no such path' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  providers = await startProviders();
  providersUrl = `http://127.0.0.1:${(providers.address() as AddressInfo).port}`;
  smtp = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'ops' && auth.password === GOOD) return callback(null, { user: 'ops' });
      return callback(new Error('Invalid username or password'));
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  api = await createTestApi({
    ssrfAllowlist: ['127.0.0.0/8'],
    chatCloudBaseUrl: providersUrl,
    chatGatewayBaseUrl: providersUrl,
  });
  org = await api.createOrg('Acme');
}, 60_000);

afterAll(async () => {
  await api?.close();
  providers?.close();
  await new Promise<void>((resolve) => smtp?.close(resolve));
});

async function configureAndCheck(module: string, config: Record<string, unknown>) {
  const put = await api.request('PUT', `/api/v1/modules/${module}`, { key: org.key, body: config });
  expect(put.status, await put.clone().text()).toBe(200);
  const res = await api.request('POST', `/api/v1/modules/${module}/test`, { key: org.key });
  expect(res.status).toBe(200);
  const text = await res.text();
  // The answer names what was checked, never a secret.
  expect(text).not.toContain(GOOD);
  expect(text).not.toContain('wrong-token');
  return JSON.parse(text) as { ok: boolean; code?: string; message: string };
}

const cloud = (token: string) => ({
  provider: 'cloud',
  business_account_id: '102290129340398',
  phone_number_id: '106540352242922',
  access_token: token,
  app_secret: 'app-secret-value',
  verify_token: 'verify-token-value',
});

describe('POST /modules/{name}/test', () => {
  it('404 while the module is not configured', async () => {
    await expectError(
      await api.request('POST', '/api/v1/modules/ai/test', { key: org.key }),
      404,
      'not_found',
    );
  });

  it('chat cloud: reads the phone number with the bearer token; a wrong token is authentication_failed', async () => {
    expect(await configureAndCheck('chat', cloud(GOOD))).toMatchObject({ ok: true });
    expect(seen.at(-1)?.path).toBe('/v21.0/106540352242922?fields=display_phone_number%2Cverified_name');
    expect(await configureAndCheck('chat', cloud('wrong-token'))).toMatchObject({
      ok: false,
      code: 'authentication_failed',
    });
  });

  it('chat gateway: reads the account with basic auth', async () => {
    const config = {
      provider: 'gateway',
      account_sid: SID,
      auth_token: GOOD,
      from_number: 'whatsapp:+14155238886',
    };
    expect(await configureAndCheck('chat', config)).toMatchObject({ ok: true });
    expect(await configureAndCheck('chat', { ...config, auth_token: 'wrong-token' })).toMatchObject({
      ok: false,
      code: 'authentication_failed',
    });
  });

  it('ai: lists the models of an OpenAI-compatible API and of the Anthropic API', async () => {
    const openai = {
      provider: 'openai',
      base_url: `${providersUrl}/openai/v1`,
      api_key: GOOD,
      default_model: 'gpt-4o-mini',
    };
    expect(await configureAndCheck('ai', openai)).toMatchObject({ ok: true });
    const anthropic = {
      provider: 'anthropic',
      base_url: `${providersUrl}/anthropic`,
      api_key: GOOD,
      default_model: 'claude',
    };
    expect(await configureAndCheck('ai', anthropic)).toMatchObject({ ok: true });
    expect(seen.at(-1)?.headers['anthropic-version']).toBe('2023-06-01');
    expect(await configureAndCheck('ai', { ...openai, api_key: 'wrong-token' })).toMatchObject({
      ok: false,
      code: 'authentication_failed',
    });
  });

  it('ai: a base URL on a private address is refused by the SSRF guard, not called', async () => {
    const before = seen.length;
    const result = await configureAndCheck('ai', {
      provider: 'openai',
      base_url: 'http://10.20.30.40/v1',
      api_key: GOOD,
      default_model: 'm',
    });
    expect(result).toMatchObject({ ok: false, code: 'unreachable' });
    expect(seen.length).toBe(before);
  });

  it('email: logs in to the SMTP server; a wrong password is authentication_failed', async () => {
    const email = {
      host: '127.0.0.1',
      port: smtpPort,
      security: 'none',
      allow_insecure: true,
      username: 'ops',
      password: GOOD,
      from_email: 'ops@example.com',
    };
    const ok = await configureAndCheck('email', email);
    expect(ok, ok.message).toMatchObject({ ok: true });
    expect(await configureAndCheck('email', { ...email, password: 'wrong-token' })).toMatchObject({
      ok: false,
      code: 'authentication_failed',
    });
  });

  it('needs modules.manage', async () => {
    const viewer = await api.keyFor(org.organizationId, ['modules.view']);
    await expectError(await api.request('POST', '/api/v1/modules/chat/test', { key: viewer }), 403);
    expect(await readJson(await api.request('GET', '/api/v1/modules/chat', { key: viewer }))).toHaveProperty(
      'config',
    );
  });
});
