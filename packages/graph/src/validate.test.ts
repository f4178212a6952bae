import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Graph, GraphEdge, GraphNode } from './schema';
import { upstreamOf, validateGraphStructure } from './validate';

const node = (id: string): GraphNode => ({
  id,
  type: 'action.transform',
  config: {},
  on_failure: 'continue',
});
const edge = (source: string, target: string, id?: string): GraphEdge =>
  id === undefined ? { source, target } : { id, source, target };
const graph = (ids: string[], edges: GraphEdge[]): Graph => ({ nodes: ids.map(node), edges });

/** Whether the edge lies on a directed cycle: its target can reach its source. */
function edgeIsOnCycle(g: Graph, index: number): boolean {
  const e = g.edges[index];
  if (!e) return false;
  const seen = new Set<string>();
  const stack = [e.target];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (id === e.source) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const next of g.edges) if (next.source === id) stack.push(next.target);
  }
  return false;
}

describe('validateGraphStructure', () => {
  it('accepts an empty graph and a single node', () => {
    expect(validateGraphStructure(graph([], []))).toEqual([]);
    expect(validateGraphStructure(graph(['a'], []))).toEqual([]);
  });

  it('accepts a diamond DAG (a → b, a → c, b → d, c → d)', () => {
    const g = graph(
      ['a', 'b', 'c', 'd'],
      [edge('a', 'b', 'e1'), edge('a', 'c', 'e2'), edge('b', 'd', 'e3'), edge('c', 'd', 'e4')],
    );
    expect(validateGraphStructure(g)).toEqual([]);
  });

  it('accepts parallel edges between the same nodes when their ids differ (e.g. two handles)', () => {
    const g = graph(['a', 'b'], [edge('a', 'b', 'x'), edge('a', 'b', 'y')]);
    expect(validateGraphStructure(g)).toEqual([]);
  });

  it('reports a duplicate node id at the second occurrence', () => {
    const issues = validateGraphStructure(graph(['a', 'b', 'a'], []));
    expect(issues).toEqual([{ path: ['nodes', 2, 'id'], message: expect.stringContaining('"a"') }]);
  });

  it('reports a duplicate edge id at the second occurrence', () => {
    const g = graph(['a', 'b', 'c'], [edge('a', 'b', 'e'), edge('b', 'c', 'e')]);
    const issues = validateGraphStructure(g);
    expect(issues).toEqual([{ path: ['edges', 1, 'id'], message: expect.stringContaining('"e"') }]);
  });

  it('does not treat edges without an id as duplicates of each other', () => {
    const g = graph(['a', 'b', 'c'], [edge('a', 'b'), edge('b', 'c')]);
    expect(validateGraphStructure(g)).toEqual([]);
  });

  it('reports an unknown source and an unknown target with their paths', () => {
    const g = graph(['a', 'b'], [edge('a', 'b'), edge('ghost', 'b'), edge('a', 'nowhere')]);
    const issues = validateGraphStructure(g);
    expect(issues.map((i) => i.path)).toEqual([
      ['edges', 1, 'source'],
      ['edges', 2, 'target'],
    ]);
    expect(issues[0]?.message).toContain('ghost');
    expect(issues[1]?.message).toContain('nowhere');
  });

  it('reports a self-loop', () => {
    const issues = validateGraphStructure(graph(['a', 'b'], [edge('a', 'b'), edge('b', 'b')]));
    expect(issues).toEqual([{ path: ['edges', 1, 'target'], message: expect.stringMatching(/itself/) }]);
  });

  it('reports a 2-node cycle', () => {
    const g = graph(['a', 'b'], [edge('a', 'b'), edge('b', 'a')]);
    const issues = validateGraphStructure(g);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/cycle/);
    expect(issues[0]?.path.slice(0, 1)).toEqual(['edges']);
  });

  it('reports a 3-node cycle behind an acyclic prefix, pointing at an edge of the cycle', () => {
    // start → a → b → c → a
    const g = graph(
      ['start', 'a', 'b', 'c'],
      [edge('start', 'a'), edge('a', 'b'), edge('b', 'c'), edge('c', 'a')],
    );
    const issues = validateGraphStructure(g);
    expect(issues).toHaveLength(1);
    const [issue] = issues;
    expect(issue?.message).toMatch(/cycle/);
    expect(issue?.path[0]).toBe('edges');
    expect(issue?.path[2]).toBe('target');
    expect(edgeIsOnCycle(g, issue?.path[1] as number)).toBe(true);
  });

  it('points at an edge on the cycle, not at an edge leaving the cycle', () => {
    // b ⇄ c is the cycle; c → d only leaves it. The edge c → d is listed first.
    const g = graph(['a', 'b', 'c', 'd'], [edge('c', 'd'), edge('a', 'b'), edge('b', 'c'), edge('c', 'b')]);
    const issues = validateGraphStructure(g);
    expect(issues).toHaveLength(1);
    const index = issues[0]?.path[1] as number;
    expect(
      edgeIsOnCycle(g, index),
      `edge ${index} (${JSON.stringify(g.edges[index])}) is not on the cycle`,
    ).toBe(true);
  });

  it('finds a cycle in a component that is not connected to the rest', () => {
    const g = graph(
      ['a', 'b', 'x', 'y', 'z'],
      [edge('a', 'b'), edge('x', 'y'), edge('y', 'z'), edge('z', 'x')],
    );
    const issues = validateGraphStructure(g);
    expect(issues).toHaveLength(1);
    expect(edgeIsOnCycle(g, issues[0]?.path[1] as number)).toBe(true);
  });

  it('accepts a long chain (no false cycle)', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `n${i}`);
    const edges = ids.slice(1).map((id, i) => edge(`n${i}`, id));
    expect(validateGraphStructure(graph(ids, edges))).toEqual([]);
  });
});

describe('validateGraphStructure (properties)', () => {
  /** Random DAGs: every edge goes from a lower to a higher node index. */
  const dag = fc.integer({ min: 2, max: 12 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      pairs: fc.array(
        fc
          .tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 }))
          .filter(([a, b]) => a !== b)
          .map(([a, b]) => (a < b ? ([a, b] as const) : ([b, a] as const))),
        { maxLength: 30 },
      ),
    }),
  );
  const build = (n: number, pairs: readonly (readonly [number, number])[]) =>
    graph(
      Array.from({ length: n }, (_, i) => `n${i}`),
      pairs.map(([a, b]) => edge(`n${a}`, `n${b}`)),
    );

  it('never reports a cycle in a DAG', () => {
    fc.assert(
      fc.property(dag, ({ n, pairs }) => {
        expect(validateGraphStructure(build(n, pairs))).toEqual([]);
      }),
    );
  });

  it('always reports a back-edge cycle, at an edge that lies on a cycle', () => {
    fc.assert(
      fc.property(dag, fc.nat(), ({ n, pairs }, pick) => {
        fc.pre(pairs.length > 0);
        const [a, b] = pairs[pick % pairs.length] as readonly [number, number];
        const g = build(n, [...pairs, [b, a]]); // b → a closes a → … → b
        const issues = validateGraphStructure(g);
        expect(issues).toHaveLength(1);
        expect(issues[0]?.message).toMatch(/cycle/);
        expect(edgeIsOnCycle(g, issues[0]?.path[1] as number)).toBe(true);
      }),
    );
  });

  it('upstreamOf agrees with reachability on random DAGs', () => {
    fc.assert(
      fc.property(dag, fc.nat(), ({ n, pairs }, pick) => {
        const g = build(n, pairs);
        const target = `n${pick % n}`;
        const reaches = (from: string): boolean => {
          const stack = [from];
          const seen = new Set<string>();
          while (stack.length > 0) {
            const id = stack.pop() as string;
            for (const e of g.edges) {
              if (e.source !== id || seen.has(e.target)) continue;
              if (e.target === target) return true;
              seen.add(e.target);
              stack.push(e.target);
            }
          }
          return false;
        };
        const expected = new Set(g.nodes.map((x) => x.id).filter((id) => id !== target && reaches(id)));
        expect(upstreamOf(g, target)).toEqual(expected);
      }),
    );
  });
});

describe('upstreamOf', () => {
  const diamond = graph(
    ['a', 'b', 'c', 'd', 'e', 'lonely'],
    [edge('a', 'b'), edge('a', 'c'), edge('b', 'd'), edge('c', 'd'), edge('d', 'e')],
  );

  it('returns every ancestor, transitively, and not the node itself', () => {
    expect(upstreamOf(diamond, 'e')).toEqual(new Set(['a', 'b', 'c', 'd']));
    expect(upstreamOf(diamond, 'd')).toEqual(new Set(['a', 'b', 'c']));
    expect(upstreamOf(diamond, 'b')).toEqual(new Set(['a']));
  });

  it('excludes siblings and descendants', () => {
    const up = upstreamOf(diamond, 'c');
    expect(up).toEqual(new Set(['a']));
    expect(up.has('b')).toBe(false);
    expect(up.has('d')).toBe(false);
  });

  it('is empty for a root, an unconnected node and an unknown id', () => {
    expect(upstreamOf(diamond, 'a').size).toBe(0);
    expect(upstreamOf(diamond, 'lonely').size).toBe(0);
    expect(upstreamOf(diamond, 'missing').size).toBe(0);
  });

  it('terminates on a cyclic graph', () => {
    const g = graph(['a', 'b', 'c'], [edge('a', 'b'), edge('b', 'c'), edge('c', 'a')]);
    expect(upstreamOf(g, 'a')).toEqual(new Set(['a', 'b', 'c']));
  });
});
