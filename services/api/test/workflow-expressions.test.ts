import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let api: TestApi;
let acme: { organizationId: string; key: string };

/** fetch → check → (true) vip, (false) regular: two sibling branches after a condition. */
function workflow(values: { check?: string; vip?: string; regular?: string } = {}) {
  return {
    name: 'Expressions',
    trigger_type: 'event',
    trigger_config: { event: 'order.created' },
    nodes: [
      {
        id: 'fetch',
        type: 'action.http_request',
        config: { url: 'https://api.example.com/orders/{{ trigger.id | urlencode }}' },
      },
      {
        id: 'check',
        type: 'action.condition',
        config: {
          conditions: [
            { left: values.check ?? '{{ nodes.fetch.body.total | number }}', operator: 'gt', right: '100' },
          ],
        },
      },
      {
        id: 'vip',
        type: 'action.transform',
        config: { assignments: [{ key: 'msg', value: values.vip ?? 'VIP {{ trigger.name | upper }}' }] },
      },
      {
        id: 'regular',
        type: 'action.transform',
        config: { assignments: [{ key: 'msg', value: values.regular ?? 'Hi {{ trigger.name }}' }] },
      },
    ],
    edges: [
      { source: 'fetch', target: 'check' },
      { source: 'check', target: 'vip', source_handle: 'true' },
      { source: 'check', target: 'regular', source_handle: 'false' },
    ],
  };
}

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
});
afterAll(() => api.close());

async function create(body: unknown) {
  const res = await api.request('POST', '/api/v1/workflows', { key: acme.key, body });
  return { res, json: (await res.json()) as Record<string, any> };
}

describe('save-time expression checks', () => {
  it('accepts expressions that use known pipes and upstream nodes', async () => {
    const { res, json } = await create(
      workflow({
        vip: '{{ nodes.fetch.body.customer | default:friend }} on {{ execution.started_at | date:Y-m-d }}',
      }),
    );
    expect(res.status).toBe(201);
    expect(json.nodes[2].config.assignments[0].value).toContain('{{ nodes.fetch.body.customer');
  });

  it('answers 422 at the config field for an unknown pipe', async () => {
    const { res, json } = await create(workflow({ vip: 'VIP {{ trigger.name | shout }}' }));
    expect(res.status).toBe(422);
    expect(json.error.code).toBe('validation_error');
    expect(json.error.fields['nodes.2.config.assignments.0.value']).toEqual([
      expect.stringContaining('unknown pipe "shout"'),
    ]);
  });

  it('answers 422 for a node that does not exist', async () => {
    const { res, json } = await create(workflow({ check: '{{ nodes.ghost.total }}' }));
    expect(res.status).toBe(422);
    expect(json.error.fields['nodes.1.config.conditions.0.left']).toEqual([
      expect.stringContaining('node "ghost", which does not exist'),
    ]);
  });

  it('answers 422 for a node on a sibling branch, which is not upstream', async () => {
    const { res, json } = await create(workflow({ regular: '{{ nodes.vip.msg }}' }));
    expect(res.status).toBe(422);
    expect(json.error.fields['nodes.3.config.assignments.0.value']).toEqual([
      expect.stringContaining('not upstream'),
    ]);
  });

  it('answers 422 for an unknown root such as env, and for a malformed expression', async () => {
    const { res, json } = await create(
      workflow({ vip: '{{ env.DATABASE_URL }}', regular: '{{ trigger.a + }}' }),
    );
    expect(res.status).toBe(422);
    expect(json.error.fields['nodes.2.config.assignments.0.value']).toEqual([
      expect.stringContaining('unknown root "env"'),
    ]);
    expect(json.error.fields['nodes.3.config.assignments.0.value']).toEqual([
      expect.stringContaining('malformed expression'),
    ]);
  });

  it('checks updates the same way', async () => {
    const { json: created } = await create(workflow());
    const res = await api.request('PUT', `/api/v1/workflows/${created.id}`, {
      key: acme.key,
      body: workflow({ vip: '{{ nodes.regular.msg }}' }),
    });
    expect(res.status).toBe(422);
    const json = (await res.json()) as Record<string, any>;
    expect(json.error.fields['nodes.2.config.assignments.0.value']).toBeDefined();
    const unchanged = await api.request('GET', `/api/v1/workflows/${created.id}`, { key: acme.key });
    expect(((await unchanged.json()) as Record<string, any>).version).toBe(1);
  });
});
