/**
 * An HTTP node's credential headers stay with the origin they were meant for: a redirect to another
 * origin (302, 303, 307, 308) reaches it without them, whatever their name, whether they came from
 * `credential_id` or from `{{credentials.…}}`; a redirect within the origin keeps them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HEADER_SECRET = 'hdr_live_5c4b3a29SECRET';
const TOKEN_SECRET = 'tok_live_0a1b2c3dSECRET';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let origin: Server;
let elsewhere: Server;
let originUrl = '';
let elsewhereUrl = '';
/** What each server saw at /landing, in order. */
const landed: { server: 'origin' | 'elsewhere'; headers: IncomingHttpHeaders }[] = [];

function fakeServer(name: 'origin' | 'elsewhere'): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/hop') {
      res.writeHead(Number(url.searchParams.get('status')), { location: url.searchParams.get('to') ?? '/' });
      res.end();
      return;
    }
    landed.push({ server: name, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  origin = fakeServer('origin');
  elsewhere = fakeServer('elsewhere');
  [originUrl, elsewhereUrl] = await Promise.all([listen(origin), listen(elsewhere)]);
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  origin?.close();
  elsewhere?.close();
});

async function post(path: string, body: unknown) {
  const res = await h.request('POST', path, { key: org.key, body });
  return { status: res.status, json: (await res.json()) as any };
}

/** Runs one HTTP node POSTing to `url` with both kinds of credential header; returns the settled step. */
async function runThrough(url: string, credentialId: string) {
  const workflow = await post('/api/v1/workflows', {
    name: `redirect ${url}`,
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      {
        id: 'call',
        type: 'action.http_request',
        config: {
          method: 'POST',
          url,
          body: { a: 1 },
          credential_id: credentialId,
          headers: { 'X-Partner-Auth': 'token {{credentials.partner.token}}', 'X-Plain': 'kept' },
        },
      },
    ],
  });
  expect(workflow.status, JSON.stringify(workflow.json)).toBe(201);
  const started = await post(`/api/v1/workflows/${workflow.json.id}/execute`, { input: {} });
  const execution = await h.waitForExecution(org.key, started.json.execution_id);
  return execution.steps.find((s: any) => s.node_id === 'call');
}

describe('HTTP node: credential headers and redirects', () => {
  let headerCredential = '';

  beforeAll(async () => {
    const header = await post('/api/v1/credentials', {
      name: 'vendor header',
      type: 'http_header',
      fields: { name: 'X-Vendor-Key', value: HEADER_SECRET },
    });
    const bearer = await post('/api/v1/credentials', {
      name: 'partner',
      type: 'http_bearer',
      fields: { token: TOKEN_SECRET },
    });
    expect([header.status, bearer.status]).toEqual([201, 201]);
    headerCredential = header.json.id;
  });

  it.each([302, 303, 307, 308])('a cross-origin %i reaches the other origin without them', async (status) => {
    landed.length = 0;
    const to = encodeURIComponent(`${elsewhereUrl}/landing`);
    const step = await runThrough(`${originUrl}/hop?status=${status}&to=${to}`, headerCredential);
    expect(step.status, JSON.stringify(step.error)).toBe('completed');
    expect(landed.map((l) => l.server)).toEqual(['elsewhere']);
    const seen = landed[0]?.headers ?? {};
    expect(seen['x-plain']).toBe('kept');
    expect(seen['x-vendor-key']).toBeUndefined();
    expect(seen['x-partner-auth']).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain('SECRET');
  });

  it('a same-origin redirect keeps them', async () => {
    landed.length = 0;
    const step = await runThrough(`${originUrl}/hop?status=307&to=/landing`, headerCredential);
    expect(step.status, JSON.stringify(step.error)).toBe('completed');
    expect(landed.map((l) => l.server)).toEqual(['origin']);
    expect(landed[0]?.headers['x-vendor-key']).toBe(HEADER_SECRET);
    expect(landed[0]?.headers['x-partner-auth']).toBe(`token ${TOKEN_SECRET}`);
  });
});
