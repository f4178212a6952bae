import { createServer, type Server } from 'node:http';
import { addNodeTypeVersionForTests } from '@weft/nodes';
import { httpRequestV2 } from '@weft/nodes/testing';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A saved workflow keeps running on the node type version it was built with (docs/decisions.md):
// a test-only v2 of action.http_request (`endpoint` instead of `url`, POST by default) is added
// after a v1 workflow was saved; the v1 workflow still saves and runs as before, a v2 node runs v2.

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
let removeV2: (() => void) | undefined;
const received: { method: string; path: string }[] = [];

async function saveWorkflow(nodes: unknown[], id?: string) {
  const res = await h.request(id ? 'PUT' : 'POST', id ? `/api/v1/workflows/${id}` : '/api/v1/workflows', {
    key: org.key,
    body: { name: 'versions', trigger_type: 'manual', status: 'active', nodes, edges: [] },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(id ? 200 : 201);
  return json;
}

async function run(workflowId: string) {
  const res = await h.request('POST', `/api/v1/workflows/${workflowId}/execute`, {
    key: org.key,
    body: { input: {} },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(202);
  return h.waitForExecution(org.key, json.execution_id);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ method: req.method ?? '', path: req.url ?? '' });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  removeV2?.();
  await h?.close();
  server?.close();
});

describe('versioned node types', () => {
  it('a workflow saved on v1 still saves and runs as v1 once v2 exists; a v2 node runs v2', async () => {
    const v1Node = { id: 'call', type: 'action.http_request', config: { url: `${baseUrl}/v1` } };
    const saved = await saveWorkflow([v1Node]);
    expect(saved.nodes[0].type_version).toBeUndefined();

    removeV2 = addNodeTypeVersionForTests(httpRequestV2);

    // Saved again unchanged (as the editor does), the node still validates as v1.
    const resaved = await saveWorkflow(saved.nodes, saved.id);
    expect(resaved.nodes[0]).toMatchObject({ config: { url: `${baseUrl}/v1`, method: 'GET' } });
    const first = await run(saved.id);
    expect(first.status, JSON.stringify(first)).toBe('success');
    expect(first.steps[0].output.status).toBe(200);

    // A v1 config named as v2 is refused at save, at the field v2 needs.
    const refused = await h.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: { name: 'x', trigger_type: 'manual', nodes: [{ ...v1Node, type_version: 2 }], edges: [] },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('nodes.0.config.endpoint');

    const v2 = await saveWorkflow([
      { id: 'call', type: 'action.http_request', type_version: 2, config: { endpoint: `${baseUrl}/v2` } },
    ]);
    expect(v2.nodes[0]).toMatchObject({ type_version: 2, config: { method: 'POST' } });
    const second = await run(v2.id);
    expect(second.status, JSON.stringify(second)).toBe('success');

    expect(received).toEqual([
      { method: 'GET', path: '/v1' },
      { method: 'POST', path: '/v2' },
    ]);
  });
});
