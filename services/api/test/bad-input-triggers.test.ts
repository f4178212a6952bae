/**
 * reference/security.md §13 against the routes of issue 4 (triggers and outbound webhooks):
 * /webhooks (CRUD and deliveries), /settings, /event-types, the webhook-token and poll-status
 * routes, trigger_config of schedule, polling and webhook workflows, the inbound hook
 * `POST /api/hooks/<token>` and the Temporal UI codec endpoint. Every bad input is a clear 4xx in
 * the error envelope (or a 2xx where it is legitimately accepted), never a 500, never a stack trace
 * or SQL text, and a refused request stores and changes nothing (row counts and table
 * fingerprints before and after). Real PostgreSQL and a real Temporal dev server (the hook route
 * starts executions).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createApp } from '@weft/api';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BAD_IDS,
  type BadInputCase,
  badInputTable,
  deepArrays,
  deepObjects,
  idLabel,
} from './bad-input-table';
import { listen, validWorkflow } from './helpers';

let h: EngineHarness;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };
let webhookId: string;
let globexWebhookId: string;
let hookPath: string;
let signedHookPath: string;
let draftHookPath: string;
let regenWorkflowId: string;
let globexHookWorkflowId: string;
let eventWorkflowId: string;
let pollingWorkflowId: string;
let scheduleWorkflowId: string;
let codecApp: ReturnType<typeof createApp>;

/** A literal public address: the save-time SSRF check needs no DNS for it. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/weft';
const HOOK_SECRET = 'hook-secret-0123456789abcdef';
const CODEC_TOKEN = 'codec-token-for-operators';
const UI = 'http://localhost:8233';

/** Tables a refused request must not grow, and tables whose contents it must not change. */
async function snapshot() {
  const [row] = await h.db.admin`
    select (select count(*)::int from workflows) as workflows,
           (select count(*)::int from webhooks) as webhooks,
           (select count(*)::int from webhook_deliveries) as webhook_deliveries,
           (select count(*)::int from executions) as executions,
           (select count(*)::int from audit_logs) as audit_logs,
           (select count(*)::int from idempotency_keys) as idempotency_keys,
           (select count(*)::int from organization_settings) as organization_settings,
           (select count(*)::int from event_names) as event_names,
           (select count(*)::int from poll_states) as poll_states,
           (select count(*)::int from api_keys) as api_keys,
           (select md5(coalesce(string_agg(row_to_json(w)::text, ',' order by w.id), ''))
              from webhooks w) as webhooks_digest,
           (select md5(coalesce(string_agg(row_to_json(w)::text, ',' order by w.id), ''))
              from workflows w) as workflows_digest,
           (select md5(coalesce(string_agg(row_to_json(s)::text, ',' order by s.organization_id), ''))
              from organization_settings s) as settings_digest`;
  return row as Record<string, unknown>;
}

async function created(res: Response): Promise<any> {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(201);
  return JSON.parse(text);
}

const createWorkflow = async (body: Record<string, unknown>, key = acme.key) =>
  created(
    await send('POST', '/api/v1/workflows', { key, body: { ...validWorkflow, status: 'active', ...body } }),
  );

beforeAll(async () => {
  h = await createEngineHarness();
  acme = await h.createOrg('Acme');
  globex = await h.createOrg('Globex');
  // Subscribed only to an event no case causes by itself, so no delivery row appears behind a case's back.
  webhookId = (
    await created(
      await send('POST', '/api/v1/webhooks', {
        key: acme.key,
        body: { url: PUBLIC_URL, events: ['workflow.deleted'] },
      }),
    )
  ).id;
  globexWebhookId = (
    await created(
      await send('POST', '/api/v1/webhooks', {
        key: globex.key,
        body: { url: PUBLIC_URL, events: ['workflow.deleted'] },
      }),
    )
  ).id;
  const hook = { trigger_type: 'webhook', trigger_config: {} };
  hookPath = new URL((await createWorkflow({ ...hook, name: 'hook' })).webhook_url).pathname;
  signedHookPath = new URL(
    (await createWorkflow({ ...hook, name: 'signed', trigger_config: { secret: HOOK_SECRET } })).webhook_url,
  ).pathname;
  draftHookPath = new URL((await createWorkflow({ ...hook, name: 'draft', status: 'draft' })).webhook_url)
    .pathname;
  regenWorkflowId = (await createWorkflow({ ...hook, name: 'regen' })).id;
  globexHookWorkflowId = (await createWorkflow({ ...hook, name: 'globex hook' }, globex.key)).id;
  eventWorkflowId = (await createWorkflow({ name: 'event' })).id;
  pollingWorkflowId = (
    await createWorkflow({
      name: 'poll',
      status: 'draft',
      trigger_type: 'polling',
      trigger_config: { url: PUBLIC_URL, interval_minutes: 60 },
    })
  ).id;
  scheduleWorkflowId = (
    await createWorkflow({
      name: 'schedule',
      status: 'draft',
      trigger_type: 'schedule',
      trigger_config: { cron: '0 8 * * *' },
    })
  ).id;
  codecApp = createApp({
    db: h.db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: 1_000_000,
      RATE_LIMIT_PER_ORG: 1_000_000,
      TRUST_PROXY_HOPS: 0,
      TEMPORAL_UI_URL: UI,
      TEMPORAL_CODEC_TOKEN: CODEC_TOKEN,
    },
    temporalReady: async () => true,
    appKey: randomBytes(32),
    logError: (error) => console.error(error),
  });
}, 180_000);

afterAll(async () => {
  await h?.close();
});

afterEach(() => {
  // Nothing a request sent may reach Object.prototype of this process (the app runs in it).
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
});

/** In-process request; an object body is JSON-encoded, a string or bytes are sent verbatim. */
function send(
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    headers?: Record<string, string>;
    app?: { request: EngineHarness['app']['request'] };
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.key) headers['X-Api-Key'] = options.key;
  let body: RequestInit['body'];
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body =
      typeof options.body === 'string' || options.body instanceof Uint8Array
        ? (options.body as RequestInit['body'])
        : JSON.stringify(options.body);
  }
  Object.assign(headers, options.headers);
  return Promise.resolve((options.app ?? h.app).request(path, { method, headers, body }));
}
const get = (path: string) => send('GET', path, { key: acme.key });
const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  send(method, path, { key: acme.key, body, headers });
const raw = (method: string, path: string, text: string, headers: Record<string, string> = {}) =>
  send(method, path, { key: acme.key, body: text, headers });
const hook = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  send('POST', path, { body, headers });
const codec = (path: string, body: string, headers: Record<string, string> = {}) =>
  send('POST', `/api/temporal-codec/${path}`, {
    body,
    headers: { Authorization: `Bearer ${CODEC_TOKEN}`, ...headers },
    app: codecApp,
  });

const hexSig = (body: string | Uint8Array, secret = HOOK_SECRET) =>
  createHmac('sha256', secret).update(body).digest('hex');
const standardSig = (id: string, ts: number, body: string, secret = HOOK_SECRET) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${ts}.${body}`).digest('base64')}`;

const webhookBody = (overrides: Record<string, unknown>) => ({
  url: PUBLIC_URL,
  events: ['workflow.deleted'],
  ...overrides,
});
/** A workflow body with the given trigger (draft, so no Temporal Schedule starts for an accepted one). */
const triggered = (trigger_type: string, trigger_config: unknown) => ({
  ...validWorkflow,
  name: `bad ${trigger_type}`,
  status: 'draft',
  trigger_type,
  trigger_config,
});
const polling = (overrides: Record<string, unknown>) =>
  triggered('polling', { url: PUBLIC_URL, interval_minutes: 5, ...overrides });
const schedule = (overrides: Record<string, unknown>) =>
  triggered('schedule', { cron: '0 8 * * *', ...overrides });

const { run, table } = badInputTable(snapshot);
type Case = BadInputCase;

/** Sends raw HTTP/1.1 over a socket to the app and answers the status line's code and the text. */
async function overSocket(
  request: (port: number) => string | Buffer[],
): Promise<{ status: number; text: string }> {
  const server = await listen(h.app);
  try {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        const parts = request(server.port);
        for (const part of typeof parts === 'string' ? [parts] : parts) socket.write(part);
      });
      let data = '';
      socket.on('data', (d) => {
        data += d.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('close', () => resolve(data));
      socket.on('error', (error) => (data ? resolve(data) : reject(error)));
    });
    return { status: Number(text.split(' ')[1]), text };
  } finally {
    await server.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Outbound webhooks: POST/PUT /webhooks
// ---------------------------------------------------------------------------------------------

describe('§13.1, 4, 6, 7, 9: /webhooks bodies (size, nesting, NUL, content type)', () => {
  table([
    {
      name: 'url of 10 KB',
      send: () =>
        json('POST', '/api/v1/webhooks', webhookBody({ url: `${PUBLIC_URL}?${'q'.repeat(10_240)}` })),
      outcome: 'refused',
      status: 422,
      field: 'url',
    },
    {
      name: 'body over 1 MiB',
      send: () => json('POST', '/api/v1/webhooks', webhookBody({ pad: 'p'.repeat(1024 * 1024) })),
      outcome: 'refused',
      status: 413,
    },
    {
      name: '100k levels of nested arrays as the body',
      send: () => raw('POST', '/api/v1/webhooks', deepArrays(100_000)),
      outcome: 'refused',
      status: 422,
    },
    {
      name: '10k levels of {"a":...} as the events value',
      send: () => raw('POST', '/api/v1/webhooks', `{"url":"${PUBLIC_URL}","events":${deepObjects(10_000)}}`),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'events array of 20k items',
      send: () =>
        raw(
          'POST',
          '/api/v1/webhooks',
          `{"url":"${PUBLIC_URL}","events":[${Array(20_000).fill('"workflow.deleted"').join(',')}]}`,
        ),
      outcome: 'refused',
      status: 422,
      field: 'events',
    },
    {
      name: 'NUL in url',
      send: () => json('POST', '/api/v1/webhooks', webhookBody({ url: `${PUBLIC_URL}\u0000` })),
      outcome: 'refused',
      status: 422,
      field: 'url',
    },
    {
      name: 'lone surrogate in url',
      send: () =>
        raw('POST', '/api/v1/webhooks', `{"url":"${PUBLIC_URL}\\ud800","events":["workflow.deleted"]}`),
      outcome: 'refused',
      status: 422,
      field: 'url',
    },
    {
      name: 'NUL in secret',
      send: () => json('POST', '/api/v1/webhooks', webhookBody({ secret: 'abcdefgh\u0000' })),
      outcome: 'refused',
      status: 422,
      field: 'secret',
    },
    {
      name: 'Content-Type text/plain carrying JSON',
      send: () =>
        raw('POST', '/api/v1/webhooks', JSON.stringify(webhookBody({})), { 'Content-Type': 'text/plain' }),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'malformed JSON',
      send: () => raw('POST', '/api/v1/webhooks', '{"url":'),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'a JSON array as the body',
      send: () => raw('POST', '/api/v1/webhooks', '[]'),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'PUT /webhooks/{id} with 10k levels of nesting',
      send: () => raw('PUT', `/api/v1/webhooks/${webhookId}`, deepObjects(10_000)),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'PUT /webhooks/{id} with an empty body',
      send: () => raw('PUT', `/api/v1/webhooks/${webhookId}`, ''),
      outcome: 'refused',
      status: 422,
      field: 'url',
    },
  ]);
});

describe('§13.18, 21: /webhooks events, secret and mass assignment', () => {
  const variants: { name: string; body?: Record<string, unknown>; text?: string; field: string }[] = [
    { name: 'events []', body: { events: [] }, field: 'events' },
    { name: 'unknown event', body: { events: ['workflow.exploded'] }, field: 'events.0' },
    { name: 'events as a string', body: { events: 'workflow.deleted' }, field: 'events' },
    { name: 'events [1e309]', text: `{"url":"${PUBLIC_URL}","events":[1e309]}`, field: 'events.0' },
    {
      name: 'url 9007199254740993',
      text: '{"url":9007199254740993,"events":["workflow.deleted"]}',
      field: 'url',
    },
    { name: 'secret of 7 characters', body: { secret: 'a'.repeat(7) }, field: 'secret' },
    { name: 'secret of 257 characters', body: { secret: 'a'.repeat(257) }, field: 'secret' },
    { name: 'secret with a space', body: { secret: 'abcd efgh' }, field: 'secret' },
    { name: 'secret with CR/LF', body: { secret: 'abcdefgh\r\nX: 1' }, field: 'secret' },
    { name: 'non-ASCII secret', body: { secret: 'sécretsécret' }, field: 'secret' },
    {
      name: 'secret 1e309',
      text: `{"url":"${PUBLIC_URL}","events":["workflow.deleted"],"secret":1e309}`,
      field: 'secret',
    },
    { name: 'secret null', body: { secret: null }, field: 'secret' },
  ];
  table(
    variants.flatMap((c): Case[] => {
      const body = () => (c.text ? c.text : JSON.stringify(webhookBody(c.body ?? {})));
      return [
        {
          name: `POST /webhooks: ${c.name}`,
          send: () => raw('POST', '/api/v1/webhooks', body()),
          outcome: 'refused',
          status: 422,
          field: c.field,
        },
        {
          name: `PUT /webhooks/{id}: ${c.name}`,
          send: () => raw('PUT', `/api/v1/webhooks/${webhookId}`, body()),
          outcome: 'refused',
          status: 422,
          field: c.field,
        },
      ];
    }),
  );

  table([
    {
      name: 'duplicate events are stored once',
      send: () =>
        json('POST', '/api/v1/webhooks', webhookBody({ events: ['workflow.deleted', 'workflow.deleted'] })),
      outcome: 'accepted',
      check: (_res, body) => expect(body.events).toEqual(['workflow.deleted']),
    },
    {
      name: 'POST /webhooks with organization_id, id, created_at, secret_ciphertext',
      send: () =>
        json(
          'POST',
          '/api/v1/webhooks',
          webhookBody({
            organization_id: globex.organizationId,
            id: globexWebhookId,
            created_at: '2000-01-01T00:00:00.000Z',
            secret_ciphertext: 'forged',
            is_admin: true,
          }),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.id).not.toBe(globexWebhookId);
        expect(body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
        const [row] = await h.db.admin`
          select organization_id, secret_ciphertext from webhooks where id = ${body.id}`;
        expect(row?.organization_id).toBe(acme.organizationId);
        expect(row?.secret_ciphertext).not.toBe('forged');
        const [other] = await h.db.admin`select organization_id from webhooks where id = ${globexWebhookId}`;
        expect(other?.organization_id).toBe(globex.organizationId);
      },
    },
    {
      name: 'PUT /webhooks/{id} with organization_id and id keeps both',
      send: () =>
        json(
          'PUT',
          `/api/v1/webhooks/${webhookId}`,
          webhookBody({ organization_id: globex.organizationId, id: globexWebhookId }),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.id).toBe(webhookId);
        const [row] = await h.db.admin`select organization_id from webhooks where id = ${webhookId}`;
        expect(row?.organization_id).toBe(acme.organizationId);
      },
    },
    {
      name: '{"__proto__":{"isAdmin":true}} in a webhook body',
      send: () =>
        raw(
          'POST',
          '/api/v1/webhooks',
          `{"__proto__":{"isAdmin":true},${JSON.stringify(webhookBody({})).slice(1)}`,
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.isAdmin).toBeUndefined();
        const [row] = await h.db
          .admin`select row_to_json(w)::text as t from webhooks w where id = ${body.id}`;
        expect(row?.t).not.toContain('isAdmin');
      },
    },
    {
      name: 'duplicate "url" keys: the last one is checked and stored',
      send: () =>
        raw(
          'POST',
          '/api/v1/webhooks',
          `{"url":"${PUBLIC_URL}","url":"http://127.0.0.1/","events":["workflow.deleted"]}`,
        ),
      outcome: 'refused',
      status: 422,
      field: 'url',
    },
  ]);
});

describe('§13.34: SSRF targets on POST and PUT /webhooks', () => {
  const targets = [
    'http://127.0.0.1/',
    'http://localhost/',
    'http://localhost./',
    'http://LOCALHOST:8080/',
    'http://[::1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[fd00:ec2::254]/',
    'http://100.64.0.1/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://[fe80::1]/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://①②⑦.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://evil.com@127.0.0.1/',
    'http://user:pass@93.184.215.14/',
    'http://127.0.0.1:5432/',
    'http://127.0.0.1:7233/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_FLUSHALL',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'ftp://93.184.215.14/',
    '//93.184.215.14/relative',
    'not a url',
  ];
  const cases: Case[] = [];
  for (const url of targets) {
    cases.push(
      {
        name: `POST /webhooks url ${url}`,
        send: () => json('POST', '/api/v1/webhooks', webhookBody({ url })),
        outcome: 'refused',
        status: 422,
        field: 'url',
      },
      {
        name: `PUT /webhooks/{id} url ${url} (the stored url stays)`,
        send: () => json('PUT', `/api/v1/webhooks/${webhookId}`, webhookBody({ url })),
        outcome: 'refused',
        status: 422,
        field: 'url',
      },
    );
  }
  table(cases);
});

// ---------------------------------------------------------------------------------------------
// Ids, pagination and filters on /webhooks, deliveries, poll-status and regenerate
// ---------------------------------------------------------------------------------------------

describe('§13.19, 20: ids on the issue 4 routes', () => {
  const badIds = BAD_IDS;
  const cases: Case[] = [];
  for (const id of badIds) {
    const label = idLabel(id);
    cases.push(
      {
        name: `GET /webhooks/${label}`,
        send: () => get(`/api/v1/webhooks/${id}`),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `PUT /webhooks/${label}`,
        send: () => json('PUT', `/api/v1/webhooks/${id}`, webhookBody({})),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `DELETE /webhooks/${label}`,
        send: () => send('DELETE', `/api/v1/webhooks/${id}`, { key: acme.key }),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `GET /webhooks/${label}/deliveries`,
        send: () => get(`/api/v1/webhooks/${id}/deliveries`),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `GET /workflows/${label}/poll-status`,
        send: () => get(`/api/v1/workflows/${id}/poll-status`),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `POST /workflows/${label}/webhook-token/regenerate`,
        send: () => send('POST', `/api/v1/workflows/${id}/webhook-token/regenerate`, { key: acme.key }),
        outcome: 'refused',
        status: 404,
      },
    );
  }
  cases.push(
    {
      name: "another organization's webhook: 404 on GET",
      send: () => get(`/api/v1/webhooks/${globexWebhookId}`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's webhook: 404 on PUT, nothing changed",
      send: () =>
        json('PUT', `/api/v1/webhooks/${globexWebhookId}`, webhookBody({ url: `${PUBLIC_URL}/hijacked` })),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's webhook: 404 on PUT even with a bad url (no SSRF oracle)",
      send: () =>
        json('PUT', `/api/v1/webhooks/${globexWebhookId}`, webhookBody({ url: 'http://10.0.0.1/' })),
      outcome: 'refused',
    },
    {
      name: "another organization's webhook: 404 on DELETE",
      send: () => send('DELETE', `/api/v1/webhooks/${globexWebhookId}`, { key: acme.key }),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's webhook: 404 on deliveries",
      send: () => get(`/api/v1/webhooks/${globexWebhookId}/deliveries`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "upper-case id of another organization's webhook: 404",
      send: () => get(`/api/v1/webhooks/${globexWebhookId.toUpperCase()}`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: 'upper-case id of an own webhook: found or 404, never 500',
      send: () => get(`/api/v1/webhooks/${webhookId.toUpperCase()}`),
      outcome: 'either',
      check: (_res, body) => expect(body.id).toBe(webhookId),
    },
    {
      name: "another organization's workflow: 404 on poll-status",
      send: () => get(`/api/v1/workflows/${globexHookWorkflowId}/poll-status`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's workflow: 404 on regenerate, its token unchanged",
      send: () =>
        send('POST', `/api/v1/workflows/${globexHookWorkflowId}/webhook-token/regenerate`, { key: acme.key }),
      outcome: 'refused',
      status: 404,
    },
    {
      name: 'regenerate on an event workflow: 409',
      send: () =>
        send('POST', `/api/v1/workflows/${eventWorkflowId}/webhook-token/regenerate`, { key: acme.key }),
      outcome: 'refused',
      status: 409,
      code: 'conflict',
    },
    {
      name: 'poll-status of a workflow that does not poll: nulls, not an error',
      send: () => get(`/api/v1/workflows/${eventWorkflowId}/poll-status`),
      outcome: 'accepted',
      check: (_res, body) => expect(body).toMatchObject({ trigger_type: 'event', last_polled_at: null }),
    },
    {
      name: 'poll-status of a polling workflow never polled',
      send: () => get(`/api/v1/workflows/${pollingWorkflowId}/poll-status`),
      outcome: 'accepted',
      check: (_res, body) =>
        expect(body).toMatchObject({ workflow_id: pollingWorkflowId, last_status: null, last_error: null }),
    },
  );
  table(cases);

  it("leaves the other organization's webhook and hook token untouched", async () => {
    const [w] = await h.db.admin`select url, organization_id from webhooks where id = ${globexWebhookId}`;
    expect(w).toMatchObject({ url: PUBLIC_URL, organization_id: globex.organizationId });
    const [wf] = await h.db.admin`select webhook_token from workflows where id = ${globexHookWorkflowId}`;
    expect(wf?.webhook_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('§13.12, 17: page, per_page and filters on the new lists', () => {
  const lists = () => ['/api/v1/webhooks', `/api/v1/webhooks/${webhookId}/deliveries`];
  const cases: Case[] = [];
  for (const which of [0, 1]) {
    const path = () => lists()[which] as string;
    const label = which === 0 ? '/webhooks' : '/webhooks/{id}/deliveries';
    for (const bad of ['-1', '0', '1e9', 'abc', '1.5', '101', '', '%00', 'Infinity', 'NaN', '1e309']) {
      cases.push({
        name: `${label}?per_page=${bad}`,
        send: () => get(`${path()}?per_page=${bad}`),
        outcome: 'refused',
        status: 422,
        field: 'per_page',
      });
    }
    for (const bad of ['-1', '0', '1.5', 'abc', '99999999999', '1e309']) {
      cases.push({
        name: `${label}?page=${bad}`,
        send: () => get(`${path()}?page=${bad}`),
        outcome: 'refused',
        status: 422,
        field: 'page',
      });
    }
    cases.push(
      {
        name: `${label}?per_page[]=1 (ignored or refused)`,
        send: () => get(`${path()}?per_page[]=1`),
        outcome: 'either',
        check: (_res, body) => expect(body.meta.per_page).toBe(15),
      },
      {
        name: `${label}?per_page=10&per_page=20 (duplicated)`,
        send: () => get(`${path()}?per_page=10&per_page=20`),
        outcome: 'either',
        check: (_res, body) => expect([10, 20]).toContain(body.meta.per_page),
      },
      {
        name: `${label}?page=1000000 (far past the end)`,
        send: () => get(`${path()}?page=1000000&per_page=100`),
        outcome: 'accepted',
        check: (_res, body) => {
          expect(body.data).toEqual([]);
          expect(body.links.next).toBeNull();
        },
      },
    );
  }
  for (const bad of ["pending' OR '1'='1", 'PENDING', 'delivered', '%00', '', 'x'.repeat(10_000)]) {
    cases.push({
      name: `deliveries?status=${bad.length > 40 ? `x…(${bad.length})` : bad}`,
      send: () => get(`/api/v1/webhooks/${webhookId}/deliveries?status=${encodeURIComponent(bad)}`),
      outcome: 'refused',
      status: 422,
      field: 'status',
    });
  }
  cases.push(
    {
      name: 'deliveries?status=failed: an empty page',
      send: () => get(`/api/v1/webhooks/${webhookId}/deliveries?status=failed`),
      outcome: 'accepted',
      check: (_res, body) => {
        expect(body.data).toEqual([]);
        expect(body.meta.total).toBe(0);
      },
    },
    {
      name: 'deliveries with unknown filters and SQL in sort are ignored',
      send: () =>
        get(
          `/api/v1/webhooks/${webhookId}/deliveries?sort=${encodeURIComponent('id;DROP TABLE webhook_deliveries')}&webhook_id=${globexWebhookId}`,
        ),
      outcome: 'accepted',
      check: (_res, body) => expect(body.data).toEqual([]),
    },
    {
      name: "GET /webhooks lists only the caller's webhooks",
      send: () => get('/api/v1/webhooks?per_page=100'),
      outcome: 'accepted',
      check: (_res, body) => {
        expect(body.data.map((w: { id: string }) => w.id)).not.toContain(globexWebhookId);
        expect(JSON.stringify(body)).not.toMatch(/secret/);
      },
    },
  );
  table(cases);
});

// ---------------------------------------------------------------------------------------------
// Settings and event types
// ---------------------------------------------------------------------------------------------

describe('§13.10, 18, 21: PUT /settings', () => {
  const refused = (name: string, text: string, field?: string): Case => ({
    name,
    send: () => raw('PUT', '/api/v1/settings', text),
    outcome: 'refused',
    status: 422,
    field,
  });
  table([
    refused('cart_inactivity_minutes 0', '{"cart_inactivity_minutes":0}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes -1', '{"cart_inactivity_minutes":-1}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes 43201', '{"cart_inactivity_minutes":43201}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes 1.5', '{"cart_inactivity_minutes":1.5}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes "60"', '{"cart_inactivity_minutes":"60"}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes 1e309', '{"cart_inactivity_minutes":1e309}', 'cart_inactivity_minutes'),
    refused(
      'cart_inactivity_minutes 9007199254740993',
      '{"cart_inactivity_minutes":9007199254740993}',
      'cart_inactivity_minutes',
    ),
    refused('cart_inactivity_minutes "NaN"', '{"cart_inactivity_minutes":"NaN"}', 'cart_inactivity_minutes'),
    refused('cart_inactivity_minutes null', '{"cart_inactivity_minutes":null}', 'cart_inactivity_minutes'),
    refused(
      'cart_inactivity_minutes -0 is below 1',
      '{"cart_inactivity_minutes":-0}',
      'cart_inactivity_minutes',
    ),
    refused(
      'organization_id in the body (mass assignment)',
      `{"organization_id":"${'0'.repeat(8)}","cart_inactivity_minutes":5}`,
    ),
    refused('updated_at in the body', '{"updated_at":"2000-01-01T00:00:00Z","cart_inactivity_minutes":5}'),
    refused('{"__proto__":{"isAdmin":true}}', '{"__proto__":{"isAdmin":true},"cart_inactivity_minutes":5}'),
    refused(
      '{"constructor":{"prototype":{"isAdmin":true}}}',
      '{"constructor":{"prototype":{"isAdmin":true}}}',
    ),
    refused('100k levels of nested arrays', deepArrays(100_000)),
    refused('a JSON array', '[{"cart_inactivity_minutes":5}]'),
    refused('a JSON string', '"cart_inactivity_minutes"'),
    refused('malformed JSON', '{"cart_inactivity_minutes":'),
    refused('NUL in an unknown key', '{"a\\u0000":1}'),
    {
      name: 'text/plain carrying JSON',
      send: () =>
        raw('PUT', '/api/v1/settings', '{"cart_inactivity_minutes":5}', { 'Content-Type': 'text/plain' }),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'GET /settings with unknown query parameters',
      send: () => get('/api/v1/settings?organization_id=x&cart_inactivity_minutes=%00'),
      outcome: 'accepted',
      check: (_res, body) => expect(body.cart_inactivity_minutes).toEqual(expect.any(Number)),
    },
    {
      name: "PUT /settings changes only the caller's organization",
      send: () => json('PUT', '/api/v1/settings', { cart_inactivity_minutes: 7 }),
      outcome: 'accepted',
      check: async (_res, body) => {
        expect(body.cart_inactivity_minutes).toBe(7);
        const rows = await h.db.admin`
          select organization_id from organization_settings where cart_inactivity_minutes = 7`;
        expect(rows.map((r) => r.organization_id)).toEqual([acme.organizationId]);
      },
    },
  ]);
});

describe('GET /event-types', () => {
  it("lists the catalog and the caller's own event names, never another organization's", async () => {
    const res = await send('POST', '/api/v1/events', {
      key: globex.key,
      body: { event: 'globex.secret_launch', payload: {} },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    await run({
      name: 'event-types with unknown query parameters',
      send: () => get(`/api/v1/event-types?organization_id=${globex.organizationId}&custom=%00`),
      outcome: 'accepted',
      check: (_res, body) => {
        const names = body.data.map((e: { name: string }) => e.name);
        expect(names).toContain('lead.created');
        expect(names).not.toContain('globex.secret_launch');
      },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// trigger_config of schedule, polling and webhook workflows
// ---------------------------------------------------------------------------------------------

describe('§13.9, 18, 23: schedule trigger_config (cron, timezone)', () => {
  const cronCases: [string, unknown][] = [
    ['6 fields (seconds)', '* * * * * *'],
    ['4 fields', '* * * *'],
    ['@daily', '@daily'],
    ['L (last day)', '0 8 L * *'],
    ['# (nth weekday)', '0 8 * * 1#2'],
    ['? field', '0 8 ? * *'],
    ['minute 60', '60 * * * *'],
    ['hour 24', '0 24 * * *'],
    ['day 32', '0 0 32 * *'],
    ['month 13', '0 0 1 13 *'],
    ['30 February (never fires)', '0 0 30 2 *'],
    ['31 April (never fires)', '0 0 31 4 *'],
    ['a second schedule after a newline', '0 8 * * *\n0 9 * * *'],
    ['shell injection', '0 8 * * *; rm -rf /'],
    ['SQL', "0 8 * * *' OR 1=1--"],
    ['empty', ''],
    ['10 KB', `${'1,'.repeat(5_000)}1 * * * *`],
    ['a number', 5],
    ['null', null],
    ['an object', { minute: 0 }],
  ];
  const cases: Case[] = cronCases.map(([name, cron]) => ({
    name: `cron: ${name}`,
    send: () => json('POST', '/api/v1/workflows', schedule({ cron })),
    outcome: 'refused',
    status: 422,
    field: 'trigger_config.cron',
  }));
  for (const [name, timezone] of [
    ['Mars/Olympus_Mons', 'Mars/Olympus_Mons'],
    ['a path', '../../etc/passwd'],
    ['an offset', '+05:00'],
    ['Local', 'Local'],
    ['65 characters', `Europe/${'x'.repeat(58)}`],
    ['empty', ''],
    ['a number', 1],
  ] as const) {
    cases.push({
      name: `timezone: ${name}`,
      send: () => json('POST', '/api/v1/workflows', schedule({ timezone })),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.timezone',
    });
  }
  cases.push(
    {
      name: 'cron 1e309 (raw JSON)',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          JSON.stringify(schedule({})).replace('"cron":"0 8 * * *"', '"cron":1e309'),
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'NUL in cron',
      send: () => json('POST', '/api/v1/workflows', schedule({ cron: '0 8 * * *\u0000' })),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'every minute is accepted (the finest Temporal and 5-field cron allow)',
      send: () => json('POST', '/api/v1/workflows', schedule({ cron: '* * * * *' })),
      outcome: 'accepted',
      check: (_res, body) => expect(body.trigger_config).toEqual({ cron: '* * * * *', timezone: 'UTC' }),
    },
    {
      name: 'a zone spelled in lower case is stored canonically',
      send: () => json('POST', '/api/v1/workflows', schedule({ timezone: 'europe/berlin' })),
      outcome: 'accepted',
      check: (_res, body) => expect(body.trigger_config.timezone).toBe('Europe/Berlin'),
    },
    {
      name: '29 February on a Monday (rare, but fires) is accepted',
      send: () => json('POST', '/api/v1/workflows', schedule({ cron: '0 0 29 2 1' })),
      outcome: 'accepted',
    },
    {
      name: 'PUT with an invalid cron leaves the workflow as it was',
      send: () =>
        json('PUT', `/api/v1/workflows/${scheduleWorkflowId}`, {
          ...schedule({ cron: '0 0 30 2 *' }),
          name: 'schedule',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.cron',
    },
    {
      name: 'PUT with a bad timezone leaves the workflow as it was',
      send: () =>
        json('PUT', `/api/v1/workflows/${scheduleWorkflowId}`, {
          ...schedule({ timezone: 'Nowhere/Land' }),
          name: 'schedule',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.timezone',
    },
  );
  table(cases);
});

describe('§13.13, 18, 34: polling trigger_config', () => {
  const refused = (name: string, overrides: Record<string, unknown>, field?: string): Case => ({
    name,
    send: () => json('POST', '/api/v1/workflows', polling(overrides)),
    outcome: 'refused',
    status: 422,
    field,
  });
  const refusedText = (name: string, text: string, field?: string): Case => ({
    name,
    send: () => raw('POST', '/api/v1/workflows', text),
    outcome: 'refused',
    status: 422,
    field,
  });
  const pollingText = (fragment: string) =>
    JSON.stringify(polling({ interval_minutes: 424242 })).replace('424242', fragment);
  table([
    refused('url file:///etc/passwd', { url: 'file:///etc/passwd' }, 'trigger_config.url'),
    refused('url javascript:alert(1)', { url: 'javascript:alert(1)' }, 'trigger_config.url'),
    refused(
      'url gopher://127.0.0.1:6379/_FLUSHALL',
      { url: 'gopher://127.0.0.1:6379/_FLUSHALL' },
      'trigger_config.url',
    ),
    refused('url data:', { url: 'data:application/json,[1]' }, 'trigger_config.url'),
    refused('url ftp:', { url: 'ftp://93.184.215.14/items.json' }, 'trigger_config.url'),
    refused('url without a scheme', { url: '93.184.215.14/items' }, 'trigger_config.url'),
    refused(
      'url with user info (the poll could never send it)',
      { url: 'https://user:pw@93.184.215.14/' },
      'trigger_config.url',
    ),
    refused('url of 10 KB', { url: `${PUBLIC_URL}?${'q'.repeat(10_240)}` }, 'trigger_config.url'),
    refused('url empty', { url: '' }, 'trigger_config.url'),
    refused('url missing', { url: undefined }, 'trigger_config.url'),
    refused('interval_minutes 0', { interval_minutes: 0 }, 'trigger_config.interval_minutes'),
    refused('interval_minutes -5', { interval_minutes: -5 }, 'trigger_config.interval_minutes'),
    refused('interval_minutes 10081', { interval_minutes: 10_081 }, 'trigger_config.interval_minutes'),
    refused('interval_minutes 1e9', { interval_minutes: 1e9 }, 'trigger_config.interval_minutes'),
    refused('interval_minutes 1.5', { interval_minutes: 1.5 }, 'trigger_config.interval_minutes'),
    refused('interval_minutes "5"', { interval_minutes: '5' }, 'trigger_config.interval_minutes'),
    refused('interval_minutes "NaN"', { interval_minutes: 'NaN' }, 'trigger_config.interval_minutes'),
    refusedText('interval_minutes 1e309', pollingText('1e309'), 'trigger_config.interval_minutes'),
    refusedText(
      'interval_minutes 9007199254740993',
      pollingText('9007199254740993'),
      'trigger_config.interval_minutes',
    ),
    refusedText('interval_minutes -0', pollingText('-0'), 'trigger_config.interval_minutes'),
    refused('both interval_minutes and cron', { cron: '*/5 * * * *' }, 'trigger_config.interval_minutes'),
    refused(
      'neither interval_minutes nor cron',
      { interval_minutes: undefined },
      'trigger_config.interval_minutes',
    ),
    refused(
      'cron that never fires',
      { interval_minutes: undefined, cron: '0 0 30 2 *' },
      'trigger_config.cron',
    ),
    refused('method DELETE', { method: 'DELETE' }, 'trigger_config.method'),
    refused('method CONNECT', { method: 'CONNECT' }, 'trigger_config.method'),
    refused('CR/LF in a header value', { headers: { 'X-Token': 'a\r\nX-Injected: 1' } }),
    refused('LF alone in a header value', { headers: { 'X-Token': 'a\nb' } }),
    refused('invalid header name', { headers: { 'Bad Header:': 'v' } }),
    refused('header name with CR/LF', { headers: { 'X-A\r\nX-B': 'v' } }),
    refused('header value a number', { headers: { 'X-N': 1 } }),
    refused('headers an array', { headers: ['X-A: 1'] }, 'trigger_config.headers'),
    refused('items_path of 257 characters', { items_path: 'a'.repeat(257) }, 'trigger_config.items_path'),
    refused('dedup_key of 257 characters', { dedup_key: 'a'.repeat(257) }, 'trigger_config.dedup_key'),
    refused('dedup_key a number', { dedup_key: 1 }, 'trigger_config.dedup_key'),
    refused('NUL in dedup_key', { dedup_key: 'id\u0000' }),
    refused('baseline "false"', { baseline: 'false' }, 'trigger_config.baseline'),
    refusedText('10k levels of nesting in headers', pollingText(`5,"headers":${deepObjects(10_000)}`)),
  ]);

  const internal = [
    'http://127.0.0.1/items',
    'http://localhost/items',
    'http://[::1]/items',
    'http://169.254.169.254/latest/meta-data/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://127.0.0.1:5432/',
  ];
  // DESIGN §10 / decisions "Polling": the SSRF guard runs at every poll (the poll is recorded as
  // `ssrf_blocked` in poll-status). Refusing at save as well is allowed, never a 500.
  table(
    internal.map(
      (url): Case => ({
        name: `internal host ${url}: refused at save or stored as given for the poll-time guard`,
        send: () => json('POST', '/api/v1/workflows', polling({ url })),
        outcome: 'either',
        check: async (_res, body) => {
          const [row] = await h.db.admin`select trigger_config from workflows where id = ${body.id}`;
          expect(row?.trigger_config).toMatchObject({ url });
        },
      }),
    ),
  );

  table([
    {
      name: 'items_path and dedup_key with injection-like text are stored verbatim, never evaluated',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          polling({
            items_path: "__proto__.polluted'; DROP TABLE poll_seen_items;--",
            dedup_key: '{{ a.constructor.constructor("return process")() }}',
          }),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        const [row] = await h.db.admin`select trigger_config from workflows where id = ${body.id}`;
        expect(row?.trigger_config).toMatchObject({
          items_path: "__proto__.polluted'; DROP TABLE poll_seen_items;--",
          dedup_key: '{{ a.constructor.constructor("return process")() }}',
        });
        const [t] = await h.db.admin`select to_regclass('poll_seen_items') is not null as present`;
        expect(t?.present).toBe(true);
      },
    },
    {
      name: '__proto__ as a header name',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          JSON.stringify(polling({ headers: { 'X-A': '1' } })).replace('"X-A"', '"__proto__"'),
        ),
      outcome: 'either',
    },
    {
      name: '__proto__ inside trigger_config is dropped',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          JSON.stringify(polling({})).replace(
            '"trigger_config":{',
            '"trigger_config":{"__proto__":{"isAdmin":true},',
          ),
        ),
      outcome: 'either',
      check: (_res, body) => expect(JSON.stringify(body.trigger_config)).not.toContain('isAdmin'),
    },
    {
      name: 'trigger.polling spelling with a bad url is still checked',
      send: () =>
        json('POST', '/api/v1/workflows', {
          ...polling({ url: 'file:///etc/passwd' }),
          trigger_type: 'trigger.polling',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.url',
    },
    {
      name: 'PUT of a polling workflow with gopher: leaves it as it was',
      send: () =>
        json('PUT', `/api/v1/workflows/${pollingWorkflowId}`, {
          ...polling({ url: 'gopher://127.0.0.1:6379/_x' }),
          name: 'poll',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.url',
    },
    {
      name: 'PUT of a polling workflow with a negative interval leaves it as it was',
      send: () =>
        json('PUT', `/api/v1/workflows/${pollingWorkflowId}`, {
          ...polling({ interval_minutes: -1 }),
          name: 'poll',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.interval_minutes',
    },
  ]);
});

describe('§13.18, 21: webhook trigger_config and the hook token', () => {
  const webhook = (trigger_config: unknown, extra: Record<string, unknown> = {}) => ({
    ...triggered('webhook', trigger_config),
    ...extra,
  });
  table([
    {
      name: 'secret of 15 characters',
      send: () => json('POST', '/api/v1/workflows', webhook({ secret: 's'.repeat(15) })),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.secret',
    },
    {
      name: 'secret of 257 characters',
      send: () => json('POST', '/api/v1/workflows', webhook({ secret: 's'.repeat(257) })),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.secret',
    },
    {
      name: 'secret of 1 MB',
      send: () => json('POST', '/api/v1/workflows', webhook({ secret: 's'.repeat(1_000_000) })),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.secret',
    },
    {
      name: 'secret a number',
      send: () => json('POST', '/api/v1/workflows', webhook({ secret: 1234567890123456 })),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.secret',
    },
    {
      name: 'secret with NUL',
      send: () => json('POST', '/api/v1/workflows', webhook({ secret: `${'s'.repeat(16)}\u0000` })),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'PUT of a webhook workflow with a short secret leaves it (and its token) as it was',
      send: () =>
        json('PUT', `/api/v1/workflows/${regenWorkflowId}`, {
          ...webhook({ secret: 'short' }),
          name: 'regen',
        }),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.secret',
    },
    {
      name: 'webhook_token in the body and in trigger_config is ignored (mass assignment)',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          webhook(
            { webhook_token: 'A'.repeat(43), token: 'A'.repeat(43) },
            { webhook_token: 'A'.repeat(43) },
          ),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        const [row] = await h.db
          .admin`select webhook_token, trigger_config from workflows where id = ${body.id}`;
        expect(row?.webhook_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(row?.webhook_token).not.toBe('A'.repeat(43));
        expect(row?.trigger_config).toEqual({});
      },
    },
    {
      name: 'regenerate ignores a token given in the body',
      send: () =>
        json('POST', `/api/v1/workflows/${regenWorkflowId}/webhook-token/regenerate`, {
          webhook_token: 'B'.repeat(43),
        }),
      outcome: 'accepted',
      check: async (_res, body) => {
        expect(body.webhook_url).not.toContain('B'.repeat(43));
        const [row] = await h.db.admin`select webhook_token from workflows where id = ${regenWorkflowId}`;
        expect(row?.webhook_token).not.toBe('B'.repeat(43));
        expect(body.webhook_url).toContain(row?.webhook_token as string);
      },
    },
  ]);
});

describe('§13.25: Idempotency-Key on the new POST routes', () => {
  const cases: Case[] = [];
  const posts: [string, () => string, () => unknown][] = [
    ['POST /webhooks', () => '/api/v1/webhooks', () => webhookBody({})],
    [
      'POST /workflows/{id}/webhook-token/regenerate',
      () => `/api/v1/workflows/${regenWorkflowId}/webhook-token/regenerate`,
      () => ({}),
    ],
  ];
  for (const [label, path, body] of posts) {
    for (const [name, value] of [
      ['256 characters', 'k'.repeat(256)],
      ['non-ASCII', 'clé'],
      ['empty', ''],
      ['an inner space and a tab', 'a b\tc'],
    ] as const) {
      cases.push({
        name: `${label} with an Idempotency-Key of ${name}`,
        send: () => json('POST', path(), body(), { 'Idempotency-Key': value }),
        outcome: 'refused',
        status: 422,
        field: 'Idempotency-Key',
      });
    }
  }
  table(cases);

  it('the same Idempotency-Key with another body on POST /webhooks is refused, nothing stored', async () => {
    const first = await json('POST', '/api/v1/webhooks', webhookBody({}), { 'Idempotency-Key': 'wh-idem-1' });
    expect(first.status).toBe(201);
    await run({
      name: 'reuse with another url',
      send: () =>
        json('POST', '/api/v1/webhooks', webhookBody({ url: `${PUBLIC_URL}/other` }), {
          'Idempotency-Key': 'wh-idem-1',
        }),
      outcome: 'refused',
      code: 'idempotency_conflict',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The inbound hook: POST /api/hooks/<token>
// ---------------------------------------------------------------------------------------------

describe('§13.19: hook tokens', () => {
  table(
    [
      ['an unknown well-formed token', 'A'.repeat(43)],
      ['a short token', 'abc'],
      ['a 10 KB token', 'x'.repeat(10_000)],
      ['%00', '%00'],
      ['../ in the token', '..%2F..%2Fv1%2Fworkflows'],
      ['SQL in the token', encodeURIComponent("' OR 1=1--")],
      ['a lone surrogate', '%ED%A0%80'],
      ['a token of 43 characters with a %', `${'A'.repeat(42)}%25`],
    ].map(
      ([name, token]): Case => ({
        name: `POST /api/hooks with ${name}`,
        send: () => hook(`/api/hooks/${token}`, '{"a":1}'),
        outcome: 'refused',
        status: 404,
      }),
    ),
  );
  table([
    {
      name: 'the token in upper case is another (unknown) token',
      send: () =>
        hook(
          hookPath.replace(/[a-z]/g, (c) => c.toUpperCase()),
          '{}',
        ),
      outcome: 'refused',
      status: 404,
    },
    {
      name: 'a hook of a draft workflow: 409, nothing recorded',
      send: () => hook(draftHookPath, '{"a":1}'),
      outcome: 'refused',
      status: 409,
      code: 'conflict',
    },
    {
      name: 'an API key does not open an unknown hook',
      send: () => send('POST', `/api/hooks/${'B'.repeat(43)}`, { key: acme.key, body: '{}' }),
      outcome: 'refused',
      status: 404,
    },
  ]);
});

describe('§13.1, 4, 5, 6, 7: hook bodies', () => {
  const refused = (name: string, body: string | Uint8Array, headers?: Record<string, string>): Case => ({
    name,
    send: () => hook(hookPath, body, headers),
    outcome: 'refused',
    status: 422,
  });
  table([
    refused('malformed JSON', '{"a":'),
    refused('a JSON array', '[1,2]'),
    refused('a JSON string', '"hello"'),
    refused('a JSON number', '42'),
    refused('JSON null', 'null'),
    refused('two JSON documents', '{"a":1}{"b":2}'),
    refused('NUL in a value', '{"a":"x\\u0000y"}'),
    refused('NUL in a key', '{"a\\u0000b":1}'),
    refused('a raw NUL byte in a string', Buffer.from('{"a":"x\u0000"}')),
    refused('lone surrogate \\ud800 in a value', '{"a":"\\ud800"}'),
    refused('lone surrogate \\udc00 as a key', '{"\\udc00":1}'),
    refused(
      'invalid UTF-8 bytes (\\xC3\\x28)',
      Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    ),
    refused(
      'overlong UTF-8 encoding of "/" (\\xC0\\xAF)',
      Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    ),
    refused('UTF-16 body with BOM', Buffer.from(`\ufeff{"a":1}`, 'utf16le'), {
      'Content-Type': 'application/json; charset=utf-16',
    }),
    refused('100k levels of nested arrays', `{"a":${deepArrays(100_000)}}`),
    refused('10k levels of {"a":...}', deepObjects(10_000)),
    refused('65 levels of nesting', deepObjects(65)),
    refused('a number 1e309 (would silently become null)', '{"amount":1e309}'),
    refused('a number -1e400', '{"amount":-1e400}'),
    refused('form-encoded body', 'a=1&b=2', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    refused('multipart body', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', {
      'Content-Type': 'multipart/form-data; boundary=x',
    }),
    {
      name: 'body over 1 MiB',
      send: () => hook(hookPath, JSON.stringify({ pad: 'p'.repeat(1024 * 1024) })),
      outcome: 'refused',
      status: 413,
      code: 'payload_too_large',
    },
  ]);

  const stored = async (executionId: string) => {
    const [row] = await h.db.admin`select trigger, trigger_payload from executions where id = ${executionId}`;
    return row as { trigger: string; trigger_payload: unknown };
  };
  table([
    {
      name: 'an empty body is {}',
      send: () => hook(hookPath, ''),
      outcome: 'accepted',
      check: async (_res, body) => expect((await stored(body.execution_ids[0])).trigger_payload).toEqual({}),
    },
    {
      name: 'text/plain carrying JSON is parsed as JSON (the Content-Type is not checked)',
      send: () => hook(hookPath, '{"order":1}', { 'Content-Type': 'text/plain' }),
      outcome: 'accepted',
      check: async (_res, body) =>
        expect((await stored(body.execution_ids[0])).trigger_payload).toEqual({ order: 1 }),
    },
    {
      name: '64 levels of nesting are accepted',
      send: () => hook(hookPath, deepObjects(63)),
      outcome: 'either',
    },
    {
      name: '{"__proto__":{"isAdmin":true}} is kept as data, the trigger is not polluted',
      send: () => hook(hookPath, '{"__proto__":{"isAdmin":true},"name":"Ada"}'),
      outcome: 'either',
      check: async (_res, body) => {
        const row = await stored(body.execution_ids[0]);
        expect((row.trigger_payload as Record<string, unknown>).name).toBe('Ada');
        expect((row.trigger_payload as Record<string, unknown>).isAdmin).toBeUndefined();
      },
    },
    {
      name: '{"constructor":{"prototype":{"isAdmin":true}}}',
      send: () => hook(hookPath, '{"constructor":{"prototype":{"isAdmin":true}}}'),
      outcome: 'either',
    },
    {
      name: 'duplicate keys: the last one wins',
      send: () => hook(hookPath, '{"role":"user","role":"admin"}'),
      outcome: 'accepted',
      check: async (_res, body) =>
        expect((await stored(body.execution_ids[0])).trigger_payload).toEqual({ role: 'admin' }),
    },
    {
      name: 'RTL override, zero-width and emoji are kept exactly',
      send: () => hook(hookPath, JSON.stringify({ name: 'a\u202Eb\u200Bc 🎉 Ａdmin' })),
      outcome: 'accepted',
      check: async (_res, body) =>
        expect((await stored(body.execution_ids[0])).trigger_payload).toEqual({
          name: 'a\u202Eb\u200Bc 🎉 Ａdmin',
        }),
    },
    {
      name: '9007199254740993 (beyond exact integers): accepted as the nearest double or refused',
      send: () => hook(hookPath, '{"id":9007199254740993}'),
      outcome: 'either',
    },
    {
      name: 'a 64 KB unrelated header in-process',
      send: () => hook(hookPath, '{}', { 'X-Padding': 'p'.repeat(65_536) }),
      outcome: 'accepted',
    },
    {
      name: 'an Idempotency-Key on a hook is ignored, not an error',
      send: () => hook(hookPath, '{}', { 'Idempotency-Key': 'k'.repeat(300) }),
      outcome: 'accepted',
    },
  ]);

  it('an oversized body sent chunked without Content-Length is 413 and records nothing', async () => {
    const before = await snapshot();
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const { status, text } = await overSocket(() => [
      Buffer.from(
        `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      ),
      Buffer.from('6\r\n{"a":"\r\n'),
      ...Array.from({ length: 6 }, () =>
        Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]),
      ),
      Buffer.from('0\r\n\r\n'),
    ]);
    expect(status, text.slice(0, 300)).toBe(413);
    expect(await snapshot()).toEqual(before);
  });

  it('both Content-Length and Transfer-Encoding: refused (400) or read chunked, never smuggled', async () => {
    const before = await snapshot();
    const { status, text } = await overSocket(
      () =>
        `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        'Content-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
        '7\r\n{"a":1}\r\n0\r\n\r\nPOST /api/v1/webhooks HTTP/1.1\r\n\r\n',
    );
    expect(status).toBeGreaterThanOrEqual(200);
    expect(status).toBeLessThan(500);
    expect(text.match(/HTTP\/1\.1 /g)?.length ?? 0).toBeLessThanOrEqual(1);
    const after = await snapshot();
    expect(after.webhooks).toBe(before.webhooks);
  });

  it('a 64 KB header over a socket is refused by the HTTP server (431) and records nothing', async () => {
    const before = await snapshot();
    const { status } = await overSocket(
      () =>
        `POST ${hookPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(65_536)}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(status).toBe(431);
    expect(await snapshot()).toEqual(before);
  });
});

describe('§13.36: hook signatures', () => {
  const body = '{"order":42}';
  const now = () => Math.floor(Date.now() / 1000);
  const unauthenticated = (name: string, headers: () => Record<string, string>, sent = body): Case => ({
    name,
    send: () => hook(signedHookPath, sent, headers()),
    outcome: 'refused',
    status: 401,
    code: 'unauthenticated',
  });
  table([
    unauthenticated('no signature', () => ({})),
    unauthenticated('an empty X-Webhook-Signature', () => ({ 'X-Webhook-Signature': '' })),
    unauthenticated('a wrong hex signature', () => ({ 'X-Webhook-Signature': 'ab'.repeat(32) })),
    unauthenticated('a signature with another secret', () => ({
      'X-Webhook-Signature': hexSig(body, 'another-secret-0123456789'),
    })),
    unauthenticated(
      'a signature over re-serialized JSON',
      () => ({
        'X-Webhook-Signature': hexSig(JSON.stringify(JSON.parse(' { "order" : 42 } '))),
      }),
      ' { "order" : 42 } ',
    ),
    unauthenticated('a sha1= prefix', () => ({
      'X-Webhook-Signature': `sha1=${createHmac('sha1', HOOK_SECRET).update(body).digest('hex')}`,
    })),
    unauthenticated('a truncated signature', () => ({ 'X-Webhook-Signature': hexSig(body).slice(0, 32) })),
    unauthenticated('a 64 KB signature', () => ({ 'X-Webhook-Signature': 'a'.repeat(65_536) })),
    unauthenticated('a signature of the body with a NUL appended', () => ({
      'X-Webhook-Signature': hexSig(`${body}\u0000`),
    })),
    unauthenticated('Standard Webhooks: 10 minutes old', () => {
      const ts = now() - 600;
      return {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': standardSig('msg_1', ts, body),
      };
    }),
    unauthenticated('Standard Webhooks: 10 minutes in the future', () => {
      const ts = now() + 600;
      return {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': standardSig('msg_1', ts, body),
      };
    }),
    unauthenticated('Standard Webhooks: timestamp 1e9 written as a float', () => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': `${now()}.0`,
      'webhook-signature': standardSig('msg_1', now(), body),
    })),
    unauthenticated('Standard Webhooks: signature for another id', () => {
      const ts = now();
      return {
        'webhook-id': 'msg_2',
        'webhook-timestamp': String(ts),
        'webhook-signature': standardSig('msg_1', ts, body),
      };
    }),
    unauthenticated('Standard Webhooks: no webhook-id', () => {
      const ts = now();
      return { 'webhook-timestamp': String(ts), 'webhook-signature': standardSig('', ts, body) };
    }),
    unauthenticated('Standard Webhooks: v2 scheme', () => {
      const ts = now();
      return {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': standardSig('msg_1', ts, body).replace('v1,', 'v2,'),
      };
    }),
    unauthenticated(
      'a signed bad body is still 401 without a signature (signature first)',
      () => ({}),
      '{"a":',
    ),
    {
      name: 'a correctly signed malformed body: 422 after the signature',
      send: () => hook(signedHookPath, '{"a":', { 'X-Webhook-Signature': hexSig('{"a":') }),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'a correctly signed body with NUL: 422',
      send: () =>
        hook(signedHookPath, '{"a":"\\u0000"}', { 'X-Webhook-Signature': hexSig('{"a":"\\u0000"}') }),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'a correct hex signature with the sha256= prefix',
      send: () => hook(signedHookPath, body, { 'X-Webhook-Signature': `sha256=${hexSig(body)}` }),
      outcome: 'accepted',
    },
    {
      name: 'a correct Standard Webhooks signature among several',
      send: () => {
        const ts = now();
        return hook(signedHookPath, body, {
          'webhook-id': 'msg_9',
          'webhook-timestamp': String(ts),
          'webhook-signature': `v1,AAAA ${standardSig('msg_9', ts, body)}`,
        });
      },
      outcome: 'accepted',
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// The Temporal UI codec endpoint
// ---------------------------------------------------------------------------------------------

describe('§13.1, 4, 7, 10, 24, 28: /api/temporal-codec/decode and /encode', () => {
  const payload = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: 'e30=' };
  const cases: Case[] = [];
  for (const path of ['decode', 'encode']) {
    const refused = (
      name: string,
      body: string,
      status = 422,
      headers: Record<string, string> = {},
    ): Case => ({
      name: `${path}: ${name}`,
      send: () => codec(path, body, headers),
      outcome: 'refused',
      status,
    });
    cases.push(
      refused('malformed JSON', '{"payloads":'),
      refused('no payloads', '{}'),
      refused('payloads an object', '{"payloads":{}}'),
      refused('1001 payloads', JSON.stringify({ payloads: Array(1001).fill(payload) })),
      refused('100k levels of nested arrays', deepArrays(100_000)),
      refused('10k levels of nesting in a payload', `{"payloads":[{"metadata":${deepObjects(10_000)}}]}`),
      refused(
        'a metadata value of 2 KB',
        JSON.stringify({ payloads: [{ metadata: { e: 'A'.repeat(2048) }, data: '' }] }),
      ),
      refused('data a number', '{"payloads":[{"metadata":{},"data":1e309}]}'),
      refused('no token, not on this machine', JSON.stringify({ payloads: [payload] }), 401, {
        Authorization: '',
      }),
      refused('a wrong token', JSON.stringify({ payloads: [payload] }), 401, {
        Authorization: 'Bearer nope',
      }),
      refused('a 64 KB token', JSON.stringify({ payloads: [payload] }), 401, {
        Authorization: `Bearer ${'t'.repeat(65_536)}`,
      }),
      refused('an origin other than the Temporal UI', JSON.stringify({ payloads: [payload] }), 403, {
        Origin: 'http://localhost:8233.evil.com',
      }),
      refused('Origin: null', JSON.stringify({ payloads: [payload] }), 403, { Origin: 'null' }),
      // The endpoint has no body limit of its own (operators only): a stranger is refused before it is read.
      refused(
        '5 MB from a caller without the token',
        JSON.stringify({ payloads: [{ ...payload, data: 'A'.repeat(5_000_000) }] }),
        401,
        {
          Authorization: '',
        },
      ),
      {
        name: `${path}: __proto__ in metadata does not reach Object.prototype`,
        send: () =>
          codec(path, '{"payloads":[{"metadata":{"__proto__":"eA==","encoding":"eA=="},"data":""}]}'),
        outcome: 'either',
      },
    );
  }
  cases.push(
    refusedDecode('data that was never encrypted', JSON.stringify({ payloads: [payload] })),
    refusedDecode(
      'an encrypted-looking payload with garbage data',
      JSON.stringify({
        payloads: [
          { metadata: { encoding: Buffer.from('binary/encrypted').toString('base64') }, data: '!!!!' },
        ],
      }),
    ),
  );
  table(cases);

  function refusedDecode(name: string, body: string): Case {
    return {
      name: `decode: ${name} (either passed through or 422, never 500)`,
      send: () => codec('decode', body),
      outcome: 'either',
    };
  }

  it('encode then decode round-trips a payload (the endpoint works with the token)', async () => {
    const encoded = await codec('encode', JSON.stringify({ payloads: [payload] }));
    expect(encoded.status).toBe(200);
    const decoded = await codec('decode', await encoded.text());
    expect(decoded.status).toBe(200);
    expect(((await decoded.json()) as { payloads: unknown[] }).payloads).toEqual([payload]);
  });
});
