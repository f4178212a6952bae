import type { GraphNode } from '@weft/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequestV2 } from '../test/http-request-v2';
import { runContext } from '../test/run-context';
import { addNodeTypeVersionForTests, describeNodeType, getNodeType, NODE_TYPES } from './registry';
import { loadNodeRunner } from './runners';
import { workflowNodeOf } from './runtime';
import { validateNodes } from './validate-nodes';

const node = (config: Record<string, unknown>, type_version?: number): GraphNode => ({
  id: 'call',
  type: 'action.http_request',
  config,
  on_failure: 'continue',
  ...(type_version === undefined ? {} : { type_version }),
});

/** Validates one node; its issues and its saved (parsed) form. */
const check = (n: GraphNode) => {
  const { graph, issues } = validateNodes({ nodes: [n], edges: [] });
  return { issues, saved: graph.nodes[0] };
};

describe('a type with a second version (test-only action.http_request v2: endpoint, POST by default)', () => {
  let remove: () => void;
  beforeAll(() => {
    remove = addNodeTypeVersionForTests(httpRequestV2);
  });
  afterAll(() => remove());

  it('makes v2 the latest: what new nodes get, and what GET /node-types describes on top', () => {
    expect(getNodeType('action.http_request')).toBe(httpRequestV2);
    expect(NODE_TYPES.find((d) => d.type === 'action.http_request')).toBe(httpRequestV2);
    const described = describeNodeType(httpRequestV2);
    expect(described.version).toBe(2);
    expect(described.config_schema).toMatchObject({ required: expect.arrayContaining(['endpoint']) });
    expect(described.previous_versions.map((v) => v.version)).toEqual([1]);
    expect(described.previous_versions[0]?.config_schema).toMatchObject({
      required: expect.arrayContaining(['url']),
    });
  });

  it('validates a node without type_version (saved before v2) as v1, as before', () => {
    const { issues, saved } = check(node({ url: 'https://example.com/a' }));
    expect(issues).toEqual([]);
    expect(saved?.config).toMatchObject({ url: 'https://example.com/a', method: 'GET' });
    expect(saved?.type_version).toBeUndefined();
    // The same config named as v1 explicitly, too; v2's field is not a v1 field.
    expect(check(node({ url: 'https://example.com/a' }, 1)).issues).toEqual([]);
    expect(check(node({ endpoint: 'https://example.com/a' })).issues.map((i) => i.path)).toEqual([
      ['nodes', 0, 'config', 'url'],
    ]);
  });

  it('validates a v2 node against v2: endpoint required, url unknown, POST by default', () => {
    const { issues, saved } = check(node({ endpoint: 'https://example.com/b' }, 2));
    expect(issues).toEqual([]);
    expect(saved).toMatchObject({
      type_version: 2,
      config: { endpoint: 'https://example.com/b', method: 'POST' },
    });
    expect(check(node({ url: 'https://example.com/b' }, 2)).issues.map((i) => i.path)).toEqual([
      ['nodes', 0, 'config', 'endpoint'],
    ]);
  });

  it('refuses a version the type does not have, naming the ones it has', () => {
    expect(check(node({ url: 'https://example.com' }, 3)).issues).toEqual([
      { path: ['nodes', 0, 'type_version'], message: 'action.http_request has no version 3 (it has 1, 2)' },
    ]);
  });

  it("runs each version with its own runner; the interpreter's traits hold for both", async () => {
    const requests: { method: string; url: string }[] = [];
    const ctx = runContext({
      http: {
        request: async (req) => {
          requests.push({ method: req.method, url: req.url });
          return {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: new TextEncoder().encode('{}'),
          };
        },
      },
    });
    const v1 = check(node({ url: 'https://example.com/one' })).saved?.config ?? {};
    const v2 = check(node({ endpoint: 'https://example.com/two' }, 2)).saved?.config ?? {};
    await (await loadNodeRunner('action.http_request'))?.run(v1, ctx);
    await (await loadNodeRunner('action.http_request', 2))?.run(v2, ctx);
    expect(requests).toEqual([
      { method: 'GET', url: 'https://example.com/one' },
      { method: 'POST', url: 'https://example.com/two' },
    ]);
    expect(workflowNodeOf('action.http_request', 2)).toBe(workflowNodeOf('action.http_request', 1));
  });
});

describe('without the test version', () => {
  it('action.http_request is back to v1 only', () => {
    expect(getNodeType('action.http_request', 2)).toBeUndefined();
    expect(check(node({ url: 'https://example.com' }, 2)).issues[0]?.path).toEqual([
      'nodes',
      0,
      'type_version',
    ]);
  });
});
