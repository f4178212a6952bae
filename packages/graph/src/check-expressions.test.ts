import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGraphExpressions } from './check-expressions';
import type { Graph, GraphEdge, GraphNode } from './schema';

const transform = (id: string, value: string): GraphNode => ({
  id,
  type: 'action.transform',
  config: { assignments: [{ key: 'out', value }] },
  on_failure: 'continue',
});
const node = (id: string, config: Record<string, unknown> = {}, type = 'action.transform'): GraphNode => ({
  id,
  type,
  config,
  on_failure: 'continue',
});
const edge = (source: string, target: string, source_handle?: string): GraphEdge =>
  source_handle === undefined ? { source, target } : { source, target, source_handle };
const valuePath = (index: number) => ['nodes', index, 'config', 'assignments', 0, 'value'];

/** fetch → check → (true) vip, (false) regular → notify: a branch and a merge point. */
function branching(
  configs: Partial<Record<'fetch' | 'check' | 'vip' | 'regular' | 'notify', string>>,
): Graph {
  const ids = ['fetch', 'check', 'vip', 'regular', 'notify'] as const;
  return {
    nodes: ids.map((id) => transform(id, configs[id] ?? 'static')),
    edges: [
      edge('fetch', 'check'),
      edge('check', 'vip', 'true'),
      edge('check', 'regular', 'false'),
      edge('vip', 'notify'),
      edge('regular', 'notify'),
    ],
  };
}

describe('checkGraphExpressions', () => {
  it('accepts references to upstream nodes, direct and transitive, and the other roots', () => {
    const graph = branching({
      check: '{{ nodes.fetch.body.total | number }}',
      vip: 'VIP {{ trigger.name | upper }} from {{ nodes.fetch.status }}',
      notify: '{{ nodes.vip.out | default:x }} {{ nodes.regular.out }} {{ nodes.fetch }} {{ execution.id }}',
    });
    expect(checkGraphExpressions(graph)).toEqual([]);
  });

  it('accepts graphs without expressions, and {{ nodes }} alone', () => {
    expect(checkGraphExpressions({ nodes: [], edges: [] })).toEqual([]);
    expect(checkGraphExpressions({ nodes: [node('a', { n: 1, s: 'x', list: [null] })], edges: [] })).toEqual(
      [],
    );
    expect(checkGraphExpressions({ nodes: [transform('a', '{{ nodes }}')], edges: [] })).toEqual([]);
  });

  it('allows the loop root, with its fields item, index and count', () => {
    const graph: Graph = {
      nodes: [
        node('each', { items: '{{ trigger.items }}' }, 'action.loop'),
        transform('body', '{{ loop.item.sku }} #{{ loop.index }} of {{ loop.count }} {{ loop }}'),
      ],
      edges: [edge('each', 'body', 'each')],
    };
    expect(checkGraphExpressions(graph)).toEqual([]);
  });

  it('reports an unknown pipe at the field that holds it', () => {
    const graph = branching({ vip: 'Hi {{ trigger.name | uper }}' });
    expect(checkGraphExpressions(graph)).toEqual([
      { path: valuePath(2), message: expect.stringContaining('unknown pipe "uper"') },
    ]);
  });

  it('reports pipes with wrong arguments', () => {
    const graph: Graph = {
      nodes: [
        transform('a', '{{ trigger.n | round:two }} {{ trigger.s | truncate }} {{ trigger.s | upper:x }}'),
      ],
      edges: [],
    };
    expect(checkGraphExpressions(graph).map((issue) => issue.message)).toEqual([
      expect.stringContaining('round: the number of decimals must be a whole number'),
      expect.stringContaining('pipe "truncate" needs an argument'),
      expect.stringContaining('pipe "upper" takes no argument'),
    ]);
  });

  it('reports a node that does not exist', () => {
    const graph = branching({ notify: '{{ nodes.ghost.body }}' });
    expect(checkGraphExpressions(graph)).toEqual([
      { path: valuePath(4), message: expect.stringContaining('node "ghost", which does not exist') },
    ]);
  });

  it('reports a node on a sibling branch: it is not upstream', () => {
    const graph = branching({ regular: '{{ nodes.vip.out }}' });
    expect(checkGraphExpressions(graph)).toEqual([
      { path: valuePath(3), message: expect.stringContaining('node "vip", which is not upstream') },
    ]);
  });

  it('reports downstream nodes, unconnected nodes and the node itself', () => {
    const graph: Graph = {
      nodes: [
        transform('first', '{{ nodes.second.out }}'),
        transform('second', '{{ nodes.second.out }}'),
        transform('island', '{{ nodes.first.out }}'),
      ],
      edges: [edge('first', 'second')],
    };
    expect(checkGraphExpressions(graph)).toEqual([
      { path: valuePath(0), message: expect.stringContaining('not upstream') },
      { path: valuePath(1), message: expect.stringContaining('names this node itself') },
      { path: valuePath(2), message: expect.stringContaining('not upstream') },
    ]);
  });

  it('resolves node references written with brackets', () => {
    const graph: Graph = {
      nodes: [node('http-1'), transform('use', "{{ nodes['http-1'].body }} {{ nodes['other'].x }}")],
      edges: [edge('http-1', 'use')],
    };
    expect(checkGraphExpressions(graph)).toEqual([
      { path: valuePath(1), message: expect.stringContaining('node "other", which does not exist') },
    ]);
  });

  it('reports unknown roots, unknown loop and execution fields, malformed and unclosed expressions', () => {
    const graph: Graph = {
      nodes: [
        node('a', {
          env: '{{ env.DATABASE_URL }}',
          proc: '{{ process.env }}',
          loop: '{{ loop.items }}',
          exec: '{{ execution.secret }}',
          bad: '{{ trigger.a + 1 }}',
          open: 'Hello {{ trigger.name',
        }),
      ],
      edges: [],
    };
    expect(checkGraphExpressions(graph)).toEqual([
      { path: ['nodes', 0, 'config', 'env'], message: expect.stringContaining('unknown root "env"') },
      { path: ['nodes', 0, 'config', 'proc'], message: expect.stringContaining('unknown root "process"') },
      { path: ['nodes', 0, 'config', 'loop'], message: expect.stringContaining('loop has no field "items"') },
      {
        path: ['nodes', 0, 'config', 'exec'],
        message: expect.stringContaining('execution has no field "secret"'),
      },
      { path: ['nodes', 0, 'config', 'bad'], message: expect.stringContaining('malformed expression') },
      { path: ['nodes', 0, 'config', 'open'], message: expect.stringContaining('unclosed {{') },
    ]);
  });

  it('reports every problem in one string, and looks inside nested objects and arrays but not keys', () => {
    const graph: Graph = {
      nodes: [
        node('h', {
          headers: { '{{ env.KEY }}': 'Bearer {{ nodes.nope.token }} {{ trigger.x | nope }}' },
          list: [['{{ env.A }}']],
        }),
      ],
      edges: [],
    };
    expect(checkGraphExpressions(graph)).toEqual([
      {
        path: ['nodes', 0, 'config', 'headers', '{{ env.KEY }}'],
        message: expect.stringContaining('"nope"'),
      },
      {
        path: ['nodes', 0, 'config', 'headers', '{{ env.KEY }}'],
        message: expect.stringContaining('unknown pipe "nope"'),
      },
      { path: ['nodes', 0, 'config', 'list', 0, 0], message: expect.stringContaining('unknown root "env"') },
    ]);
  });

  it('ignores literal braces written as \\{{', () => {
    expect(checkGraphExpressions({ nodes: [transform('a', '\\{{ env.X }}')], edges: [] })).toEqual([]);
  });

  it('accepts any reference to any ancestor in a random chain', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.nat(), fc.nat(), (length, a, b) => {
        const ids = Array.from({ length }, (_, i) => `n${i}`);
        const [from, to] = [a % length, b % length].sort((x, y) => x - y) as [number, number];
        const nodes = ids.map((id, i) => transform(id, i === to ? `{{ nodes.n${from}.out }}` : 'x'));
        const edges = ids.slice(1).map((id, i) => edge(`n${i}`, id));
        const issues = checkGraphExpressions({ nodes, edges });
        expect(issues.length).toBe(from === to ? 1 : 0);
      }),
    );
  });
});
