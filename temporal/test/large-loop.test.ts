import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Its own file (and so its own worker process): see the note on the SDK's async-hook crash in the
// issue notes; other engine tests run in engine.test.ts.
let h: EngineHarness;
let org: { organizationId: string; key: string };

beforeAll(async () => {
  h = await createEngineHarness();
  org = await h.createOrg();
}, 120_000);
afterAll(() => h?.close());

it('loops over 10,000 items without hitting Temporal payload or history limits', async () => {
  const created = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: {
      name: 'big loop',
      trigger_type: 'manual',
      nodes: [
        { id: 'each', type: 'action.loop', config: { items: '{{trigger.items}}', max_items: 10000 } },
        {
          id: 'double',
          type: 'action.transform',
          config: { assignments: [{ key: 'n', value: '{{loop.item}}' }] },
        },
      ],
      edges: [{ source: 'each', target: 'double', source_handle: 'each' }],
    },
  });
  const workflow = (await created.json()) as { id: string };
  const items = Array.from({ length: 10_000 }, (_, i) => i);
  const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key: org.key,
    body: { input: { items } },
  });
  const { execution_id: executionId } = (await started.json()) as { execution_id: string };
  const execution = await h.waitForExecution(org.key, executionId, undefined, 120_000);
  expect(execution.status).toBe('success');
  expect(execution.steps.find((s: any) => s.node_id === 'each').output.count).toBe(10_000);
  const [row] = await h.db
    .admin`select count(*)::int as n from execution_steps where execution_id = ${executionId} and node_id = 'double'`;
  expect(row?.n).toBe(10_000);
  const history = await h.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
  expect(history.events?.length ?? 0).toBeLessThan(1000);
}, 150_000);
