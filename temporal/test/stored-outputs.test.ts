import { createServer, type Server } from 'node:http';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Node outputs above the inline limit live in PostgreSQL and travel through Temporal by reference
 * (DESIGN: Temporal payloads stop at 2 MB, histories at 50 MB). The receiver returns 3 MB of JSON:
 * carried inline, the activity result alone would be refused by Temporal.
 */
let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
const received: unknown[] = [];

const ITEMS = 40_000;
const bigBody = JSON.stringify({
  items: Array.from({ length: ITEMS }, (_, i) => ({ id: i, name: `item-${i}`, note: 'x'.repeat(48) })),
});

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

async function run(nodes: unknown[], edges: unknown[], input: Record<string, unknown> = {}) {
  const created = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: { name: 'large outputs', trigger_type: 'manual', status: 'active', nodes, edges },
  });
  const workflow = (await created.json()) as any;
  expect(created.status, JSON.stringify(workflow)).toBe(201);
  const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key: org.key,
    body: { input },
  });
  const { execution_id } = (await started.json()) as any;
  return { executionId: execution_id as string, execution: await h.waitForExecution(org.key, execution_id) };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method === 'POST') received.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/big' ? bigBody : '{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

describe('large node outputs', () => {
  it('a 3 MB HTTP response is stored in PostgreSQL; later nodes read it by reference and history stays small', async () => {
    const { executionId, execution } = await run(
      [
        { id: 'fetch', type: 'action.http_request', config: { method: 'GET', url: `${baseUrl}/big` } },
        {
          id: 'summary',
          type: 'action.transform',
          config: {
            assignments: [
              { key: 'count', value: '{{nodes.fetch.body.items | length}}' },
              { key: 'third', value: '{{nodes.fetch.body.items[2].name}}' },
            ],
          },
        },
        {
          id: 'many',
          type: 'action.condition',
          config: {
            conditions: [{ left: '{{nodes.fetch.body.items | length}}', operator: 'gt', right: '1000' }],
          },
        },
        {
          id: 'count_in_code',
          type: 'action.code',
          config: {
            code: 'return { n: input.nodes.fetch.body.items.length, last: input.nodes.fetch.body.items.at(-1).id };',
            // Copying 3 MB into the sandbox counts against the deadline: the default 1 s ran out on a
            // busy 2-core machine (code_timeout). This test is about stored outputs, not deadlines.
            timeout_ms: 10_000,
          },
        },
        {
          id: 'send_first',
          type: 'action.http_request',
          config: {
            method: 'POST',
            url: `${baseUrl}/first`,
            body: { first: '{{nodes.fetch.body.items[0]}}' },
          },
        },
        {
          id: 'echo',
          type: 'action.transform',
          config: { assignments: [{ key: 'from_summary', value: '{{nodes.summary.third}}' }] },
        },
      ],
      [
        { source: 'fetch', target: 'summary' },
        { source: 'summary', target: 'many' },
        { source: 'many', target: 'count_in_code', source_handle: 'true' },
        { source: 'count_in_code', target: 'send_first' },
        { source: 'send_first', target: 'echo' },
      ],
    );
    expect(execution.status, JSON.stringify(execution.steps.map((s: any) => [s.node_id, s.error]))).toBe(
      'success',
    );
    expect(step(execution, 'summary').output).toEqual({ count: ITEMS, third: 'item-2' });
    expect(step(execution, 'many').output).toEqual({ result: true });
    expect(step(execution, 'count_in_code').output).toEqual({ n: ITEMS, last: ITEMS - 1 });
    expect(step(execution, 'echo').output).toEqual({ from_summary: 'item-2' });
    expect(received).toContainEqual({ first: { id: 0, name: 'item-0', note: 'x'.repeat(48) } });
    // GET /executions/{id} shows the stored value itself on the step that produced it.
    expect(step(execution, 'fetch').output.body.items).toHaveLength(ITEMS);

    const history = await h.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
    const historyBytes = JSON.stringify(history).length;
    expect(historyBytes).toBeLessThan(200_000);
    const [row] = await h.db
      .admin`select count(*)::int as n, max(size_bytes) as size from stored_outputs where execution_id = ${executionId}`;
    expect(row?.n).toBeGreaterThanOrEqual(1);
    expect(Number(row?.size)).toBeGreaterThan(2_000_000);
  }, 60_000);

  it('a small output stays inline: nothing is stored', async () => {
    const { executionId, execution } = await run(
      [{ id: 'fetch', type: 'action.http_request', config: { method: 'GET', url: `${baseUrl}/small` } }],
      [],
    );
    expect(execution.status).toBe('success');
    expect(step(execution, 'fetch').output.body).toEqual({ ok: true });
    const [row] = await h.db
      .admin`select count(*)::int as n from stored_outputs where execution_id = ${executionId}`;
    expect(row?.n).toBe(0);
  }, 30_000);

  it('an expression that builds a value over the limits fails its step with expression_too_large, naming the field', async () => {
    // Rendered in the activity (it reads a stored output): 3 MB of JSON text is over 1 Mi characters.
    const stored = await run(
      [
        { id: 'fetch', type: 'action.http_request', config: { method: 'GET', url: `${baseUrl}/big` } },
        {
          id: 'grow',
          type: 'action.transform',
          config: { assignments: [{ key: 'all', value: '{{ nodes.fetch.body | json }}' }] },
        },
      ],
      [{ source: 'fetch', target: 'grow' }],
    );
    expect(step(stored.execution, 'grow').error).toMatchObject({
      code: 'expression_too_large',
      message: expect.stringMatching(/^assignments\.0\.value: .*json.*longer than 1048576 characters/),
    });
    // Rendered in workflow code (small inline data): the probe's split-into-characters then join.
    const inline = await run(
      [
        {
          id: 'grow',
          type: 'action.transform',
          config: {
            assignments: [{ key: 'all', value: '{{ trigger.s | split: | join:bbbbbbbbbb }}' }],
          },
        },
      ],
      [],
      { s: 'a'.repeat(150_000) },
    );
    expect(step(inline.execution, 'grow').error).toMatchObject({
      code: 'expression_too_large',
      message: expect.stringMatching(/^assignments\.0\.value: .*more than 100000 items/),
    });
  }, 60_000);
});
