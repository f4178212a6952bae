import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

const validWorkflow = {
  name: 'Welcome new leads',
  description: 'Greets every new lead',
  trigger_type: 'event',
  trigger_config: { event: 'lead.created' },
  status: 'active',
  nodes: [
    {
      id: 'greet',
      type: 'action.transform',
      config: { assignments: [{ key: 'msg', value: 'Hi {{trigger.name}}' }] },
    },
    {
      id: 'check',
      type: 'action.condition',
      config: { conditions: [{ left: '{{trigger.vip}}', operator: 'equals', right: 'true' }] },
    },
    { id: 'vip', type: 'action.transform', config: { assignments: [{ key: 'tier', value: 'gold' }] } },
  ],
  edges: [
    { source: 'greet', target: 'check' },
    { source: 'check', target: 'vip', source_handle: 'true' },
  ],
};

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api.close());

async function create(body: unknown, key = acme.key) {
  const res = await api.request('POST', '/api/v1/workflows', { key, body });
  return { res, json: (await res.json()) as Record<string, any> };
}

describe('POST /workflows', () => {
  it('creates a workflow and returns it with 201', async () => {
    const { res, json } = await create(validWorkflow);
    expect(res.status).toBe(201);
    expect(json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(json).toMatchObject({
      name: 'Welcome new leads',
      trigger_type: 'event',
      status: 'active',
      version: 1,
    });
    expect(json.nodes).toHaveLength(3);
    expect(json.nodes[0]).toMatchObject({ id: 'greet', on_failure: 'continue' });
    expect(json.edges[1]).toMatchObject({ source: 'check', target: 'vip', source_handle: 'true' });
    expect(json.edges[0].id).toBeTruthy();
  });

  it('normalizes trigger.polling and the email_send alias', async () => {
    const { res, json } = await create({
      name: 'Poll',
      trigger_type: 'trigger.polling',
      trigger_config: { url: 'https://example.com/orders', interval_minutes: 5 },
      nodes: [{ id: 'mail', type: 'email_send', config: { to: 'a@b.c', subject: 'x', body: 'y' } }],
    });
    expect(res.status).toBe(201);
    expect(json.trigger_type).toBe('polling');
    expect(json.nodes[0].type).toBe('action.email.send');
    expect(json.status).toBe('draft');
  });

  it('answers 422 on field name when the name is missing', async () => {
    const { name: _omit, ...rest } = validWorkflow;
    const { res, json } = await create(rest);
    expect(res.status).toBe(422);
    expect(json.error.code).toBe('validation_error');
    expect(Object.keys(json.error.fields)).toContain('name');
  });

  it('answers 422 on field trigger_type for an unknown trigger type', async () => {
    const { res, json } = await create({ ...validWorkflow, trigger_type: 'telepathy' });
    expect(res.status).toBe(422);
    expect(json.error.fields.trigger_type).toBeDefined();
  });

  it('checks trigger_config for the trigger type', async () => {
    const { res, json } = await create({ ...validWorkflow, trigger_config: { event: 'Not An Event!' } });
    expect(res.status).toBe(422);
    expect(json.error.fields['trigger_config.event']).toBeDefined();
    const schedule = await create({
      ...validWorkflow,
      trigger_type: 'schedule',
      trigger_config: { cron: '* *' },
    });
    expect(schedule.json.error.fields['trigger_config.cron']).toBeDefined();
  });

  it('refuses duplicate node ids, dangling edges, cycles, unknown types and bad configs with field paths', async () => {
    const dup = await create({
      ...validWorkflow,
      nodes: [validWorkflow.nodes[0], validWorkflow.nodes[0]],
      edges: [],
    });
    expect(dup.json.error.fields['nodes.1.id']).toBeDefined();

    const dangling = await create({ ...validWorkflow, edges: [{ source: 'greet', target: 'ghost' }] });
    expect(dangling.json.error.fields['edges.0.target']).toBeDefined();

    const cycle = await create({
      ...validWorkflow,
      edges: [
        { source: 'greet', target: 'vip' },
        { source: 'vip', target: 'greet' },
      ],
    });
    expect(cycle.res.status).toBe(422);
    expect(Object.keys(cycle.json.error.fields).some((k) => k.startsWith('edges.'))).toBe(true);

    const unknownType = await create({
      ...validWorkflow,
      nodes: [{ id: 'x', type: 'action.teleport', config: {} }],
      edges: [],
    });
    expect(unknownType.json.error.fields['nodes.0.type']).toBeDefined();

    const badConfig = await create({
      ...validWorkflow,
      nodes: [{ id: 'h', type: 'action.http_request', config: { method: 'GET' } }],
      edges: [],
    });
    expect(badConfig.json.error.fields['nodes.0.config.url']).toBeDefined();

    const badHandle = await create({
      ...validWorkflow,
      edges: [{ source: 'check', target: 'vip', source_handle: 'maybe' }],
    });
    expect(badHandle.json.error.fields['edges.0.source_handle']).toBeDefined();
  });

  it('ignores organization_id and id in the body (no mass assignment)', async () => {
    const { res, json } = await create({
      ...validWorkflow,
      id: '00000000-0000-0000-0000-000000000001',
      organization_id: globex.organizationId,
    });
    expect(res.status).toBe(201);
    expect(json.id).not.toBe('00000000-0000-0000-0000-000000000001');
    const rows = await api.db.admin`select organization_id from workflows where id = ${json.id}`;
    expect(rows[0]?.organization_id).toBe(acme.organizationId);
  });

  it('needs workflows.create', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    const { res, json } = await create(validWorkflow, viewer);
    expect(res.status).toBe(403);
    expect(json.error.code).toBe('forbidden');
  });
});

describe('GET /workflows/{id}', () => {
  it('returns the workflow with nodes and edges', async () => {
    const { json: created } = await create(validWorkflow);
    const res = await api.request('GET', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, any>;
    expect(json.nodes).toEqual(created.nodes);
    expect(json.edges).toEqual(created.edges);
  });

  it("answers 404, never 403, for another organization's workflow", async () => {
    const { json: created } = await create(validWorkflow);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await api.request(method, `/api/v1/workflows/${created.id}`, {
        key: globex.key,
        body: method === 'PUT' ? validWorkflow : undefined,
      });
      expect(res.status, method).toBe(404);
      expect(((await res.json()) as any).error.code).toBe('not_found');
    }
    const still = await api.request('GET', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(still.status).toBe(200);
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    for (const id of ['abc', '..%2F..%2Fetc', '00000000-0000-0000-0000-000000000000']) {
      const res = await api.request('GET', `/api/v1/workflows/${id}`, { key: acme.key });
      expect(res.status, id).toBe(404);
    }
  });
});

describe('PUT /workflows/{id}', () => {
  it('replaces nodes and edges fully and bumps the version', async () => {
    const { json: created } = await create(validWorkflow);
    const replacement = {
      ...validWorkflow,
      name: 'Renamed',
      nodes: [{ id: 'only', type: 'action.delay', config: { duration: '5m' } }],
      edges: [],
    };
    const res = await api.request('PUT', `/api/v1/workflows/${created.id}`, {
      key: acme.key,
      body: replacement,
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, any>;
    expect(json.name).toBe('Renamed');
    expect(json.nodes.map((n: { id: string }) => n.id)).toEqual(['only']);
    expect(json.edges).toEqual([]);
    expect(json.version).toBe(2);
  });

  it('validates like create', async () => {
    const { json: created } = await create(validWorkflow);
    const res = await api.request('PUT', `/api/v1/workflows/${created.id}`, {
      key: acme.key,
      body: { name: '' },
    });
    expect(res.status).toBe(422);
  });
});

describe('DELETE /workflows/{id}', () => {
  it('deletes with 204 and then answers 404', async () => {
    const { json: created } = await create(validWorkflow);
    const res = await api.request('DELETE', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(res.status).toBe(204);
    const again = await api.request('GET', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(again.status).toBe(404);
  });
});

describe('GET /workflows', () => {
  let org: { organizationId: string; key: string };
  beforeAll(async () => {
    org = await api.createOrg('Lister');
    const names = ['Alpha orders', 'Beta orders', '100% done', 'under_score', 'Gamma'];
    for (const [i, name] of names.entries()) {
      await create({ ...validWorkflow, name, status: i % 2 === 0 ? 'active' : 'draft' }, org.key);
    }
  });

  it('paginates with the envelope and links', async () => {
    const res = await api.request('GET', '/api/v1/workflows?per_page=2&page=2', { key: org.key });
    expect(res.status).toBe(200);
    const json = (await res.json()) as Record<string, any>;
    expect(json.data).toHaveLength(2);
    expect(json.meta).toEqual({ current_page: 2, last_page: 3, per_page: 2, total: 5 });
    expect(json.links.first).toBe('/api/v1/workflows?page=1&per_page=2');
    expect(json.links.prev).toBe('/api/v1/workflows?page=1&per_page=2');
    expect(json.links.next).toBe('/api/v1/workflows?page=3&per_page=2');
    expect(json.links.last).toBe('/api/v1/workflows?page=3&per_page=2');
    expect(json.data[0].nodes).toBeUndefined();
  });

  it('defaults to 15 per page and refuses more than 100', async () => {
    const res = await api.request('GET', '/api/v1/workflows', { key: org.key });
    expect(((await res.json()) as any).meta.per_page).toBe(15);
    for (const bad of ['101', '0', '-1', 'abc', '1.5', '1e9']) {
      const r = await api.request('GET', `/api/v1/workflows?per_page=${bad}`, { key: org.key });
      expect(r.status, bad).toBe(422);
      expect(((await r.json()) as any).error.fields.per_page).toBeDefined();
    }
  });

  it('filters by status and searches name and description with LIKE characters taken literally', async () => {
    const active = (await (
      await api.request('GET', '/api/v1/workflows?status=active', { key: org.key })
    ).json()) as any;
    expect(active.meta.total).toBe(3);
    const orders = (await (
      await api.request('GET', '/api/v1/workflows?search=ORDERS', { key: org.key })
    ).json()) as any;
    expect(orders.meta.total).toBe(2);
    const percent = (await (
      await api.request('GET', '/api/v1/workflows?search=%25', { key: org.key })
    ).json()) as any;
    expect(percent.data.map((w: any) => w.name)).toEqual(['100% done']);
    const underscore = (await (
      await api.request('GET', '/api/v1/workflows?search=_', { key: org.key })
    ).json()) as any;
    expect(underscore.data.map((w: any) => w.name)).toEqual(['under_score']);
    const description = (await (
      await api.request('GET', '/api/v1/workflows?search=greets', { key: org.key })
    ).json()) as any;
    expect(description.meta.total).toBe(5);
    const linkKeepsFilter = (await (
      await api.request('GET', '/api/v1/workflows?search=orders&per_page=1', { key: org.key })
    ).json()) as any;
    expect(linkKeepsFilter.links.next).toBe('/api/v1/workflows?search=orders&page=2&per_page=1');
  });

  it("never lists another organization's workflows", async () => {
    const other = (await (
      await api.request('GET', '/api/v1/workflows?per_page=100', { key: globex.key })
    ).json()) as any;
    expect(other.meta.total).toBe(0);
  });

  it('refuses an invalid status filter', async () => {
    const res = await api.request('GET', '/api/v1/workflows?status=sleeping', { key: org.key });
    expect(res.status).toBe(422);
  });
});
