import { allTemplates, TEMPLATE_REFERENCE } from '@weft/templates';
import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// GET /templates, GET /templates/{id}, POST /templates/{id}/clone (DESIGN §7): the gallery's API.

let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
});
afterAll(() => api?.close());

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const workflowCount = async (organizationId: string) =>
  Number(
    (
      await api.db.admin`select count(*)::int as n from workflows where organization_id = ${organizationId}`
    )[0]?.n,
  );

describe('templates API', () => {
  it('lists all 42, filters by category and search, and never answers a secret', async () => {
    const all = await json(await api.request('GET', '/api/v1/templates', { key: acme.key }));
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(allTemplates().length);
    expect(all.body.data[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        modules: expect.any(Array),
        node_count: expect.any(Number),
      }),
    );
    expect(all.body.data[0].workflow).toBeUndefined();
    const chat = await json(await api.request('GET', '/api/v1/templates?category=chat', { key: acme.key }));
    expect(chat.body.data.length).toBeGreaterThan(0);
    expect(chat.body.data.every((t: { category: string }) => t.category === 'chat')).toBe(true);
    const found = await json(await api.request('GET', '/api/v1/templates?search=crm', { key: acme.key }));
    expect(found.body.data.map((t: { id: string }) => t.id)).toContain('lead-welcome-and-crm-sync');
    const bad = await json(await api.request('GET', '/api/v1/templates?category=nope', { key: acme.key }));
    expect(bad.status).toBe(422);
    expect(bad.body.error.fields.category).toBeDefined();
  });

  it('answers one template with its whole workflow, and 404 for an unknown id', async () => {
    const one = await json(
      await api.request('GET', '/api/v1/templates/lead-welcome-and-crm-sync', { key: acme.key }),
    );
    expect(one.status).toBe(200);
    expect(one.body.workflow.nodes.length).toBe(one.body.node_count);
    expect(one.body.sample.trigger_payload).toBeDefined();
    const missing = await json(
      await api.request('GET', '/api/v1/templates/..%2Fetc%2Fpasswd', { key: acme.key }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const huge = await api.request('GET', `/api/v1/templates/${'a'.repeat(5000)}`, { key: acme.key });
    expect(huge.status).toBe(422);
  });

  it("clones a template as a draft in the caller's organization only, once per Idempotency-Key", async () => {
    const before = await workflowCount(acme.organizationId);
    const headers = { 'Idempotency-Key': 'clone-lead-1' };
    const first = await json(
      await api.request('POST', '/api/v1/templates/lead-welcome-and-crm-sync/clone', {
        key: acme.key,
        headers,
      }),
    );
    const again = await json(
      await api.request('POST', '/api/v1/templates/lead-welcome-and-crm-sync/clone', {
        key: acme.key,
        headers,
      }),
    );
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(first.body).toMatchObject({
      status: 'draft',
      trigger_type: 'event',
      name: expect.stringMatching(/lead/i),
    });
    expect(first.body.nodes[0].position).toBeDefined();
    expect(await workflowCount(acme.organizationId)).toBe(before + 1);
    const fromGlobex = await api.request('GET', `/api/v1/workflows/${first.body.id}`, { key: globex.key });
    expect(fromGlobex.status).toBe(404);
    const audit = await api.db
      .admin`select action from audit_logs where entity_id = ${first.body.id} and organization_id = ${acme.organizationId}`;
    expect(audit.map((r) => r.action)).toEqual(['created']);
  });

  it('clones the template a template calls and points its Execute workflow node at the copy', async () => {
    const caller = allTemplates().find((t) =>
      t.workflow.nodes.some((n) =>
        TEMPLATE_REFERENCE.test(String((n as { config?: { workflow_id?: unknown } }).config?.workflow_id)),
      ),
    );
    expect(caller, 'a template that calls another').toBeDefined();
    if (!caller) return;
    const before = await workflowCount(globex.organizationId);
    const cloned = await json(
      await api.request('POST', `/api/v1/templates/${caller.id}/clone`, { key: globex.key }),
    );
    expect(cloned.status).toBe(201);
    const node = cloned.body.nodes.find((n: { type: string }) => n.type === 'action.workflow.execute');
    const callee = await json(
      await api.request('GET', `/api/v1/workflows/${node.config.workflow_id}`, { key: globex.key }),
    );
    expect(callee.status).toBe(200);
    expect(callee.body.status).toBe('draft');
    expect(await workflowCount(globex.organizationId)).toBe(before + 2);
  });

  it('refuses a clone without workflows.create and an unknown template, creating nothing', async () => {
    const viewer = await api.keyFor(acme.organizationId, ['workflows.view']);
    const before = await workflowCount(acme.organizationId);
    const denied = await api.request('POST', '/api/v1/templates/lead-welcome-and-crm-sync/clone', {
      key: viewer,
    });
    expect(denied.status).toBe(403);
    const unknown = await api.request('POST', '/api/v1/templates/no-such-template/clone', { key: acme.key });
    expect(unknown.status).toBe(404);
    expect(await workflowCount(acme.organizationId)).toBe(before);
  });
});
