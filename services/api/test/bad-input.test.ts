/**
 * Table-driven checks of the bad inputs in reference/security.md §13 that reach the REST API v1
 * routes of today: every one is a clear 4xx in the error envelope (or a 2xx where the input is
 * legitimately accepted), never a 500, never a stack trace or SQL text, and nothing is stored for a
 * refused request.
 */
import { connect } from 'node:net';
import { createTestApi, type TestApi } from '@weft/testing';
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

let api: TestApi;
let acme: { organizationId: string; key: string; apiKeyId: string };
let globex: { organizationId: string; key: string; apiKeyId: string };
let workflowId: string;
let globexWorkflowId: string;

const TABLES = ['workflows', 'api_keys', 'audit_logs', 'idempotency_keys'] as const;
type Counts = Record<(typeof TABLES)[number], number>;

async function counts(): Promise<Counts> {
  const [row] = await api.db.admin`
    select (select count(*)::int from workflows) as workflows,
           (select count(*)::int from api_keys) as api_keys,
           (select count(*)::int from audit_logs) as audit_logs,
           (select count(*)::int from idempotency_keys) as idempotency_keys`;
  return row as unknown as Counts;
}

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
  const mk = async (name: string, key = acme.key) => {
    const res = await api.request('POST', '/api/v1/workflows', {
      key,
      body: { ...validWorkflow, name, description: null },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  workflowId = await mk('plain');
  for (const name of ['under_score', 'back\\slash', '50% off']) await mk(name);
  globexWorkflowId = await mk('globex only', globex.key);
});
afterAll(() => api.close());

afterEach(() => {
  // Nothing a request sent may reach Object.prototype of this process (the app runs in it).
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('isAdmin');
  expect(Object.keys(Object.prototype)).toEqual([]);
});

/** Raw JSON text (so that 1e309, duplicate keys and huge nesting reach the server verbatim). */
const raw = (method: string, path: string, text: string, headers: Record<string, string> = {}) =>
  api.request(method, path, {
    key: acme.key,
    body: text,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  api.request(method, path, { key: acme.key, body, headers });
const get = (path: string) => api.request('GET', path, { key: acme.key });

const wf = (overrides: Record<string, unknown>) => ({ ...validWorkflow, ...overrides });
const withNodeConfig = (config: unknown, type = 'action.transform') =>
  wf({ nodes: [{ id: 'n1', type, config }], edges: [] });
/** Workflow JSON text with `fragment` (raw JSON) as the value of `field` (a top-level field). */
const wfText = (field: string, fragment: string) => {
  const rest = JSON.stringify({ ...validWorkflow, [field]: undefined }).slice(1, -1);
  return `{${rest},"${field}":${fragment}}`;
};
const nodeConfigText = (fragment: string) =>
  `{"name":"deep","trigger_type":"manual","nodes":[{"id":"n1","type":"action.transform","config":${fragment}}]}`;

const { table } = badInputTable(counts);
type Case = BadInputCase;

describe('§13.1, 4, 5, 9: size, nesting and width', () => {
  table([
    {
      name: '1 MB name on POST /workflows',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'n'.repeat(1_000_000) })),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: '1 MB name on PUT /workflows/{id}',
      send: () => json('PUT', `/api/v1/workflows/${workflowId}`, wf({ name: 'n'.repeat(1_000_000) })),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: '1 MB name on POST /api-keys',
      send: () =>
        json('POST', '/api/v1/api-keys', { name: 'n'.repeat(1_000_000), permissions: ['workflows.view'] }),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'body over 1 MiB',
      send: () => json('POST', '/api/v1/workflows', wf({ description: 'd'.repeat(1024 * 1024) })),
      outcome: 'refused',
      status: 413,
    },
    {
      name: '100k levels of nested arrays as the body',
      send: () => raw('POST', '/api/v1/workflows', deepArrays(100_000)),
      outcome: 'refused',
    },
    {
      name: '100k levels of nested arrays in a node config',
      send: () => raw('POST', '/api/v1/workflows', nodeConfigText(`{"assignments":${deepArrays(100_000)}}`)),
      outcome: 'refused',
    },
    {
      name: '10k levels of {"a":{"a":...}} as the body',
      send: () => raw('POST', '/api/v1/workflows', deepObjects(10_000)),
      outcome: 'refused',
    },
    {
      name: '10k levels of {"a":...} in trigger_config',
      send: () => raw('POST', '/api/v1/workflows', wfText('trigger_config', deepObjects(10_000))),
      outcome: 'refused',
    },
    {
      name: '10k levels of {"a":...} on PUT',
      send: () => raw('PUT', `/api/v1/workflows/${workflowId}`, deepObjects(10_000)),
      outcome: 'refused',
    },
    {
      name: '10k levels of {"a":...} on POST /api-keys',
      send: () => raw('POST', '/api/v1/api-keys', deepObjects(10_000)),
      outcome: 'refused',
    },
    {
      name: 'nodes array of 100k items (max 500)',
      send: () =>
        raw('POST', '/api/v1/workflows', wfText('nodes', `[${Array(100_000).fill('0').join(',')}]`)),
      outcome: 'refused',
      status: 422,
    },
    {
      name: '20k unknown keys in the body are ignored',
      send: () => {
        const extra = Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',');
        return raw('POST', '/api/v1/workflows', `{${extra},${JSON.stringify(wf({ name: 'wide' })).slice(1)}`);
      },
      outcome: 'accepted',
      check: async (_res, body) => {
        const [row] = await api.db
          .admin`select row_to_json(w)::text as t from workflows w where id = ${body.id}`;
        expect(row?.t).not.toContain('k19999');
      },
    },
    {
      name: '64 KB X-Api-Key header',
      send: () => api.request('GET', '/api/v1/workflows', { headers: { 'X-Api-Key': 'k'.repeat(65_536) } }),
      outcome: 'refused',
      status: 401,
    },
  ]);
});

describe('§13.6, 7: NUL, lone surrogates, bad UTF-8 and charsets', () => {
  table([
    {
      name: 'NUL in name',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'a\u0000b' })),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'NUL in description on PUT',
      send: () => json('PUT', `/api/v1/workflows/${workflowId}`, wf({ description: 'x\u0000' })),
      outcome: 'refused',
      status: 422,
      field: 'description',
    },
    {
      name: 'NUL inside a node config value',
      send: () =>
        json('POST', '/api/v1/workflows', withNodeConfig({ assignments: [{ key: 'k', value: 'v\u0000' }] })),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'NUL in a node config key',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          withNodeConfig({ url: 'https://example.com', body: { 'a\u0000b': 1 } }, 'action.http_request'),
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'NUL in trigger_config',
      send: () =>
        json('POST', '/api/v1/workflows', wf({ trigger_config: { event: 'lead.created', x: '\u0000' } })),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'NUL in an API key name',
      send: () => json('POST', '/api/v1/api-keys', { name: 'k\u0000', permissions: ['workflows.view'] }),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'lone surrogate \\ud800 in name',
      send: () => raw('POST', '/api/v1/workflows', wfText('name', '"x\\ud800y"')),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'lone surrogate \\udc00 inside a node config',
      send: () =>
        raw('POST', '/api/v1/workflows', nodeConfigText('{"assignments":[{"key":"k","value":"\\udc00"}]}')),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'lone surrogate as an object key in an http body',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          `{"name":"s","trigger_type":"manual","nodes":[{"id":"n1","type":"action.http_request","config":{"url":"https://example.com","body":{"\\ud800":1}}}]}`,
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'invalid UTF-8 bytes (\\xC3\\x28) in name',
      send: () => {
        const prefix = Buffer.from('{"name":"bad');
        const suffix = Buffer.from(`","trigger_type":"manual"}`);
        return api.app.request('/api/v1/workflows', {
          method: 'POST',
          headers: { 'X-Api-Key': acme.key, 'Content-Type': 'application/json' },
          body: Buffer.concat([prefix, Buffer.from([0xc3, 0x28]), suffix]),
        });
      },
      // Bytes that are not UTF-8 are refused before parsing (json-body.ts), never stored with U+FFFD.
      outcome: 'refused',
      status: 422,
      code: 'validation_error',
      field: 'body',
    },
    {
      name: 'UTF-16 body declared as charset=utf-16',
      send: () => {
        const text = JSON.stringify(wf({ name: 'utf16' }));
        const buf = Buffer.from(`\ufeff${text}`, 'utf16le');
        return api.app.request('/api/v1/workflows', {
          method: 'POST',
          headers: { 'X-Api-Key': acme.key, 'Content-Type': 'application/json; charset=utf-16' },
          body: buf,
        });
      },
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'RTL override, zero-width and 4-byte emoji in a name are kept exactly',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'a\u202Eb\u200Bc 🎉 Ａdmin é' })),
      outcome: 'accepted',
      check: async (_res, body) => {
        expect(body.name).toBe('a\u202Eb\u200Bc 🎉 Ａdmin é');
        const [row] = await api.db.admin`select name from workflows where id = ${body.id}`;
        expect(row?.name).toBe('a\u202Eb\u200Bc 🎉 Ａdmin é');
      },
    },
  ]);
});

describe('§13.10: prototype-pollution keys', () => {
  table([
    {
      name: '{"__proto__":{"isAdmin":true}} at the top of a workflow body',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          `{"__proto__":{"isAdmin":true},${JSON.stringify(wf({ name: 'proto' })).slice(1)}`,
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.isAdmin).toBeUndefined();
        const [row] = await api.db
          .admin`select row_to_json(w)::text as t from workflows w where id = ${body.id}`;
        expect(row?.t).not.toContain('isAdmin');
      },
    },
    {
      name: '{"constructor":{"prototype":{"isAdmin":true}}} at the top of a workflow body',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          `{"constructor":{"prototype":{"isAdmin":true}},${JSON.stringify(wf({ name: 'ctor' })).slice(1)}`,
        ),
      outcome: 'either',
      check: async (_res, body) => {
        const [row] = await api.db
          .admin`select row_to_json(w)::text as t from workflows w where id = ${body.id}`;
        expect(row?.t).not.toContain('isAdmin');
      },
    },
    {
      name: '__proto__ key inside a transform node config',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          nodeConfigText('{"assignments":[{"key":"k","value":"v"}],"__proto__":{"isAdmin":true}}'),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(JSON.stringify(body.nodes)).not.toContain('isAdmin');
      },
    },
    {
      name: 'constructor.prototype inside a node config',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          nodeConfigText(
            '{"assignments":[{"key":"k","value":"v"}],"constructor":{"prototype":{"isAdmin":true}}}',
          ),
        ),
      outcome: 'either',
    },
    {
      name: '__proto__ inside trigger_config',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          wfText('trigger_config', '{"event":"lead.created","__proto__":{"isAdmin":true}}'),
        ),
      outcome: 'either',
      check: (_res, body) => {
        expect(body.trigger_config).toEqual({ event: 'lead.created' });
      },
    },
    {
      name: '__proto__ in http_request headers and body',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          '{"name":"hdr","trigger_type":"manual","nodes":[{"id":"n1","type":"action.http_request","config":{"url":"https://example.com","headers":{"__proto__":"x"},"body":{"__proto__":{"isAdmin":true}}}}]}',
        ),
      outcome: 'either',
    },
    {
      name: '__proto__ carrying permissions on POST /api-keys grants nothing more',
      send: () =>
        raw(
          'POST',
          '/api/v1/api-keys',
          '{"name":"proto key","permissions":["workflows.view"],"__proto__":{"permissions":["*"]}}',
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.permissions).toEqual(['workflows.view']);
        const [row] = await api.db.admin`select permissions from api_keys where id = ${body.id}`;
        expect(row?.permissions).toEqual(['workflows.view']);
      },
    },
    {
      name: 'duplicate JSON keys: the last one wins, consistently',
      send: () =>
        raw('POST', '/api/v1/workflows', `{"name":"first","name":"second","trigger_type":"manual"}`),
      outcome: 'accepted',
      check: async (_res, body) => {
        expect(body.name).toBe('second');
        const [row] = await api.db.admin`select name from workflows where id = ${body.id}`;
        expect(row?.name).toBe('second');
      },
    },
  ]);
});

describe('§13.12, 13: injection in search and headers', () => {
  const names = async (res: Response, body: any) => {
    expect(res.status).toBe(200);
    return body.data.map((w: any) => w.name).sort();
  };
  table([
    {
      name: "search '%%%%' matches only names containing %%%%",
      send: () => get('/api/v1/workflows?search=%25%25%25%25'),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual([]),
    },
    {
      name: "search '%' matches only the name with a percent sign",
      send: () => get('/api/v1/workflows?search=%25'),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual(['50% off']),
    },
    {
      name: "search '_' is literal",
      send: () => get('/api/v1/workflows?search=_'),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual(['under_score']),
    },
    {
      name: "search '\\' is literal",
      send: () => get('/api/v1/workflows?search=%5C'),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual(['back\\slash']),
    },
    {
      name: "search '\\%' is literal (no escape smuggling)",
      send: () => get('/api/v1/workflows?search=%5C%25'),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual([]),
    },
    {
      name: 'search "\' OR 1=1--" finds nothing and changes nothing',
      send: () => get(`/api/v1/workflows?search=${encodeURIComponent("' OR 1=1--")}`),
      outcome: 'accepted',
      check: async (res, body) => expect(await names(res, body)).toEqual([]),
    },
    {
      name: 'search with %00',
      send: () => get('/api/v1/workflows?search=a%00b'),
      outcome: 'refused',
      status: 422,
      field: 'search',
    },
    {
      name: 'search of 10 KB',
      send: () => get(`/api/v1/workflows?search=${'a'.repeat(10_240)}`),
      outcome: 'refused',
    },
    {
      name: 'search with an encoded lone surrogate (%ED%A0%80)',
      send: () => get('/api/v1/workflows?search=%ED%A0%80'),
      outcome: 'either',
    },
    {
      name: 'search with invalid percent-encoding (%FF, %G1, lone %)',
      send: () => get('/api/v1/workflows?search=%FF%G1%'),
      outcome: 'either',
    },
    {
      name: 'unknown sort parameter with SQL is ignored',
      send: () =>
        get(`/api/v1/workflows?sort=${encodeURIComponent('name;DROP TABLE workflows')}&order=(select 1)`),
      outcome: 'accepted',
      check: async () => {
        const [row] = await api.db.admin`select count(*)::int as n from workflows`;
        expect(row?.n).toBeGreaterThan(0);
      },
    },
    {
      name: 'status filter with SQL',
      send: () => get(`/api/v1/workflows?status=${encodeURIComponent("active' OR '1'='1")}`),
      outcome: 'refused',
      status: 422,
      field: 'status',
    },
    {
      name: 'audit entity_type with %00',
      send: () => get('/api/v1/audit-logs?entity_type=work%00flow'),
      outcome: 'refused',
      status: 422,
      field: 'entity_type',
    },
    {
      name: 'audit action with SQL',
      send: () => get(`/api/v1/audit-logs?action=${encodeURIComponent("created' OR 1=1--")}`),
      outcome: 'refused',
      status: 422,
      field: 'action',
    },
    {
      name: 'CR/LF in an http_request header value (header injection)',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          withNodeConfig(
            { url: 'https://example.com', headers: { 'X-Test': 'a\r\nX-Injected: 1' } },
            'action.http_request',
          ),
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'invalid http_request header name',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          withNodeConfig(
            { url: 'https://example.com', headers: { 'Bad Header:': 'v' } },
            'action.http_request',
          ),
        ),
      outcome: 'refused',
      status: 422,
    },
  ]);
});

describe('§13.17: page and per_page', () => {
  const lists = ['/api/v1/workflows', '/api/v1/audit-logs', '/api/v1/api-keys'];
  const cases: Case[] = [];
  for (const path of lists) {
    for (const bad of ['-1', '0', '1e9', 'abc', '1.5', '101', '', '%00', 'Infinity', 'NaN', '1e309']) {
      cases.push({
        name: `${path}?per_page=${bad}`,
        send: () => get(`${path}?per_page=${bad}`),
        outcome: 'refused',
        status: 422,
        field: 'per_page',
      });
    }
    for (const bad of ['-1', '0', '1.5', 'abc', '99999999999', '1e309']) {
      cases.push({
        name: `${path}?page=${bad}`,
        send: () => get(`${path}?page=${bad}`),
        outcome: 'refused',
        status: 422,
        field: 'page',
      });
    }
    cases.push({
      name: `${path}?per_page[]=1 (an unknown parameter: ignored or refused)`,
      send: () => get(`${path}?per_page[]=1`),
      outcome: 'either',
      check: (_res, body) => {
        expect(body.meta.per_page).toBe(path.endsWith('audit-logs') ? 25 : 15);
      },
    });
    cases.push({
      name: `${path}?per_page=10&per_page=20 (duplicated)`,
      send: () => get(`${path}?per_page=10&per_page=20`),
      outcome: 'either',
      check: (_res, body) => {
        expect([10, 20]).toContain(body.meta.per_page);
      },
    });
    cases.push({
      name: `${path}?page=1000000 (far past the end)`,
      send: () => get(`${path}?page=1000000&per_page=100`),
      outcome: 'accepted',
      check: (_res, body) => {
        expect(body.data).toEqual([]);
        expect(body.meta.current_page).toBe(1000000);
        expect(body.links.next).toBeNull();
      },
    });
  }
  table(cases);
});

describe('§13.18: numbers where strings are expected', () => {
  table([
    {
      name: 'name 1e309 (Infinity)',
      send: () => raw('POST', '/api/v1/workflows', wfText('name', '1e309')),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'name 9007199254740993 (precision loss)',
      send: () => raw('POST', '/api/v1/workflows', wfText('name', '9007199254740993')),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'description -0',
      send: () => raw('POST', '/api/v1/workflows', wfText('description', '-0')),
      outcome: 'refused',
      status: 422,
      field: 'description',
    },
    {
      name: 'trigger_config.event 9007199254740993',
      send: () => raw('POST', '/api/v1/workflows', wfText('trigger_config', '{"event":9007199254740993}')),
      outcome: 'refused',
      status: 422,
      field: 'trigger_config.event',
    },
    {
      name: 'node id 9007199254740993',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          '{"name":"n","trigger_type":"manual","nodes":[{"id":9007199254740993,"type":"action.delay","config":{"duration":"5m"}}]}',
        ),
      outcome: 'refused',
      status: 422,
      field: 'nodes.0.id',
    },
    {
      name: 'http_request timeout_ms 1e309',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          '{"name":"n","trigger_type":"manual","nodes":[{"id":"h","type":"action.http_request","config":{"url":"https://example.com","timeout_ms":1e309}}]}',
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'canvas position 1e309',
      send: () =>
        raw(
          'POST',
          '/api/v1/workflows',
          '{"name":"n","trigger_type":"manual","nodes":[{"id":"d","type":"action.delay","config":{"duration":"5m"},"position":{"x":1e309,"y":0}}]}',
        ),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'API key name 1e309',
      send: () => raw('POST', '/api/v1/api-keys', '{"name":1e309,"permissions":["workflows.view"]}'),
      outcome: 'refused',
      status: 422,
      field: 'name',
    },
    {
      name: 'API key permissions [9007199254740993]',
      send: () => raw('POST', '/api/v1/api-keys', '{"name":"n","permissions":[9007199254740993]}'),
      outcome: 'refused',
      status: 422,
    },
    {
      name: 'status "NaN"',
      send: () => json('POST', '/api/v1/workflows', wf({ status: 'NaN' })),
      outcome: 'refused',
      status: 422,
      field: 'status',
    },
  ]);
});

describe('§13.19, 20: ids', () => {
  const badIds = BAD_IDS;
  const cases: Case[] = [];
  for (const id of badIds) {
    const label = idLabel(id);
    cases.push(
      {
        name: `GET /workflows/${label}`,
        send: () => get(`/api/v1/workflows/${id}`),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `PUT /workflows/${label}`,
        send: () => json('PUT', `/api/v1/workflows/${id}`, wf({ name: 'never' })),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `DELETE /workflows/${label}`,
        send: () => api.request('DELETE', `/api/v1/workflows/${id}`, { key: acme.key }),
        outcome: 'refused',
        status: 404,
      },
      {
        name: `POST /api-keys/${label}/revoke`,
        send: () => api.request('POST', `/api/v1/api-keys/${id}/revoke`, { key: acme.key }),
        outcome: 'refused',
        status: 404,
      },
    );
  }
  cases.push(
    {
      name: 'upper-case UUID of an existing workflow: found or 404, never 500',
      send: () => get(`/api/v1/workflows/${workflowId.toUpperCase()}`),
      outcome: 'either',
      check: (_res, body) => expect(body.id).toBe(workflowId),
    },
    {
      name: "another organization's workflow id: 404 on GET",
      send: () => get(`/api/v1/workflows/${globexWorkflowId}`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's workflow id: 404 on PUT, nothing changed",
      send: () => json('PUT', `/api/v1/workflows/${globexWorkflowId}`, wf({ name: 'hijacked' })),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's workflow id: 404 on DELETE",
      send: () => api.request('DELETE', `/api/v1/workflows/${globexWorkflowId}`, { key: acme.key }),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "upper-case of another organization's workflow id: 404",
      send: () => get(`/api/v1/workflows/${globexWorkflowId.toUpperCase()}`),
      outcome: 'refused',
      status: 404,
    },
    {
      name: "another organization's API key id on revoke: 404",
      send: () => api.request('POST', `/api/v1/api-keys/${globex.apiKeyId}/revoke`, { key: acme.key }),
      outcome: 'refused',
      status: 404,
    },
  );
  table(cases);

  it("leaves the other organization's workflow and key untouched", async () => {
    const [w] = await api.db
      .admin`select name, organization_id from workflows where id = ${globexWorkflowId}`;
    expect(w).toMatchObject({ name: 'globex only', organization_id: globex.organizationId });
    const [k] = await api.db.admin`select revoked_at from api_keys where id = ${globex.apiKeyId}`;
    expect(k?.revoked_at).toBeNull();
  });
});

describe('§13.21: mass assignment', () => {
  table([
    {
      name: 'POST /workflows with organization_id, id, version, created_at, permissions',
      send: () =>
        json(
          'POST',
          '/api/v1/workflows',
          wf({
            name: 'mass',
            organization_id: globex.organizationId,
            id: globexWorkflowId,
            version: 99,
            created_at: '2000-01-01T00:00:00.000Z',
            permissions: ['*'],
            is_admin: true,
          }),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.id).not.toBe(globexWorkflowId);
        expect(body.version).toBe(1);
        expect(body.created_at).not.toBe('2000-01-01T00:00:00.000Z');
        expect(body.permissions).toBeUndefined();
        const [row] = await api.db
          .admin`select organization_id, version from workflows where id = ${body.id}`;
        expect(row).toMatchObject({ organization_id: acme.organizationId, version: 1 });
      },
    },
    {
      name: 'PUT /workflows/{id} with organization_id, id and version',
      send: () =>
        json(
          'PUT',
          `/api/v1/workflows/${workflowId}`,
          wf({
            name: 'plain',
            description: null,
            organization_id: globex.organizationId,
            id: globexWorkflowId,
            version: 99,
          }),
        ),
      outcome: 'either',
      check: async (_res, body) => {
        expect(body.id).toBe(workflowId);
        expect(body.version).toBeLessThan(99);
        const [row] = await api.db
          .admin`select organization_id, version from workflows where id = ${workflowId}`;
        expect(row?.organization_id).toBe(acme.organizationId);
        expect(row?.version).toBe(body.version);
        const [other] = await api.db
          .admin`select name, version from workflows where id = ${globexWorkflowId}`;
        expect(other).toMatchObject({ name: 'globex only', version: 1 });
      },
    },
    {
      name: 'POST /api-keys with organization_id and created_by fields',
      send: () =>
        json('POST', '/api/v1/api-keys', {
          name: 'mass key',
          permissions: ['workflows.view'],
          organization_id: globex.organizationId,
          created_by_api_key_id: globex.apiKeyId,
          key_hash: 'a'.repeat(64),
        }),
      outcome: 'either',
      check: async (_res, body) => {
        const [row] = await api.db.admin`
          select organization_id, created_by_api_key_id, key_hash from api_keys where id = ${body.id}`;
        expect(row?.organization_id).toBe(acme.organizationId);
        expect(row?.created_by_api_key_id).toBe(acme.apiKeyId);
        expect(row?.key_hash).not.toBe('a'.repeat(64));
      },
    },
  ]);
});

describe('§13.23: dates in audit-log from/to', () => {
  const cases: Case[] = [];
  for (const param of ['from', 'to']) {
    for (const bad of [
      '2026-02-30',
      '0000-00-00',
      '2026-02-30T00:00:00Z',
      '0000-00-00T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T23:59:60Z',
      '2026-01-01T24:00:00Z',
      'yesterday',
      '1e309',
      '%00',
      '2026-01-01T00:00:00+99:00',
    ]) {
      cases.push({
        name: `audit-logs ${param}=${bad}`,
        send: () => get(`/api/v1/audit-logs?${param}=${encodeURIComponent(bad)}`),
        outcome: 'refused',
        status: 422,
        field: param,
      });
    }
    for (const edge of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59+23:59', '1970-01-01T00:00:00.000Z']) {
      cases.push({
        name: `audit-logs ${param}=${edge} (valid ISO 8601, far from now)`,
        send: () => get(`/api/v1/audit-logs?${param}=${encodeURIComponent(edge)}`),
        outcome: 'either',
      });
    }
  }
  cases.push({
    name: 'audit-logs from after to: an empty page',
    send: () => get('/api/v1/audit-logs?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z'),
    outcome: 'accepted',
    check: (_res, body) => expect(body.meta.total).toBe(0),
  });
  table(cases);
});

describe('§13.25: Idempotency-Key values', () => {
  it('fetch itself refuses CR/LF in a header value (so it cannot be sent in-process)', () => {
    expect(() => new Headers({ 'Idempotency-Key': 'a\r\nX-Injected: 1' })).toThrow();
  });

  table([
    {
      name: 'Idempotency-Key of 256 characters',
      send: () =>
        json('POST', '/api/v1/workflows', wf({ name: 'idem256' }), { 'Idempotency-Key': 'k'.repeat(256) }),
      outcome: 'refused',
      status: 422,
      field: 'Idempotency-Key',
    },
    {
      name: 'non-ASCII Idempotency-Key',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'idemé' }), { 'Idempotency-Key': 'clé' }),
      outcome: 'refused',
      status: 422,
      field: 'Idempotency-Key',
    },
    {
      name: 'empty Idempotency-Key',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'idem-empty' }), { 'Idempotency-Key': '' }),
      outcome: 'refused',
      status: 422,
      field: 'Idempotency-Key',
    },
    {
      name: 'Idempotency-Key with an inner space and a tab',
      send: () => json('POST', '/api/v1/workflows', wf({ name: 'idem-sp' }), { 'Idempotency-Key': 'a b\tc' }),
      outcome: 'refused',
      status: 422,
      field: 'Idempotency-Key',
    },
    {
      name: 'Idempotency-Key with a SQL quote is just a key',
      send: () =>
        json('POST', '/api/v1/workflows', wf({ name: 'idem-sql' }), { 'Idempotency-Key': "k';DROP--" }),
      outcome: 'accepted',
    },
  ]);

  it('a raw CR in Idempotency-Key over a socket is refused with 400 and stores nothing', async () => {
    const before = await counts();
    const server = await listen(api.app);
    try {
      const body = JSON.stringify(wf({ name: 'idem-cr' }));
      const response = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.write(
            `POST /api/v1/workflows HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${acme.key}\r\n` +
              `Content-Type: application/json\r\nIdempotency-Key: a\rX-Injected: 1\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
        });
        let data = '';
        socket.on('data', (d) => {
          data += d.toString();
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const status = Number(response.split(' ')[1]);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
      expect(response).not.toMatch(/X-Injected/i);
    } finally {
      await server.close();
    }
    expect(await counts()).toEqual(before);
  });
});
