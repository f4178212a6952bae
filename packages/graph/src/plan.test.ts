import { describe, expect, it } from 'vitest';
import { liveEdges, loopEntries, planGraph, readyNodes } from './plan';
import type { GraphEdge, GraphNode } from './schema';

const node = (id: string, type = 'action.transform'): GraphNode => ({
  id,
  type,
  config: {},
  on_failure: 'continue',
});
/** In these tests, as in the registry, `action.loop` is the type that loops. */
const planOf = (nodes: GraphNode[], edges: GraphEdge[]) =>
  planGraph(nodes, edges, (n) => n.type === 'action.loop');
const edge = (source: string, target: string, source_handle?: string): GraphEdge =>
  source_handle === undefined ? { source, target } : { source, target, source_handle };

/** Walks `scope` the way the interpreter does, with `fire` deciding each ran node's handle. */
function walk(
  plan: ReturnType<typeof planGraph>,
  scope: Set<string>,
  entries: Set<string>,
  fire: (id: string) => string | undefined,
  fired: Record<string, string | undefined> = {},
) {
  const settled = new Set(Object.keys(fired));
  const ran = new Set(Object.keys(fired));
  const order: string[][] = [];
  const skipped: string[] = [];
  for (;;) {
    const ready = readyNodes(plan, scope, settled, fired);
    if (ready.length === 0) return { order, skipped, ran };
    order.push(ready);
    for (const id of ready) {
      settled.add(id);
      if (!entries.has(id) && liveEdges(plan, id, ran, fired).length === 0) {
        skipped.push(id);
        continue;
      }
      ran.add(id);
      fired[id] = fire(id);
    }
  }
}

describe('planGraph', () => {
  it('finds roots, adjacency and the nodes of each loop body', () => {
    const plan = planOf(
      [node('a'), node('loop', 'action.loop'), node('b'), node('c'), node('after')],
      [edge('a', 'loop'), edge('loop', 'b', 'each'), edge('b', 'c'), edge('loop', 'after', 'done')],
    );
    expect([...plan.roots]).toEqual(['a']);
    expect([...plan.mainNodes]).toEqual(['a', 'loop', 'after']);
    expect([...(plan.loopBodies.get('loop') ?? [])].sort()).toEqual(['b', 'c']);
    expect(loopEntries(plan, 'loop')).toEqual(['b']);
    expect(plan.incoming.get('c')?.map((e) => e.source)).toEqual(['b']);
    expect(plan.outgoing.get('loop')?.map((e) => e.target)).toEqual(['b', 'after']);
  });

  it('keeps a graph without loops whole, with every node that has no input as a root', () => {
    const plan = planOf([node('x'), node('y'), node('z')], [edge('x', 'z')]);
    expect([...plan.roots]).toEqual(['x', 'y']);
    expect(plan.loopBodies.size).toBe(0);
  });
});

describe('readyNodes and liveEdges', () => {
  it('runs the taken branch of a condition and skips the other, then joins on the merge', () => {
    const plan = planOf(
      [node('if', 'action.condition'), node('yes'), node('no'), node('then'), node('merge', 'action.merge')],
      [
        edge('if', 'yes', 'true'),
        edge('if', 'no', 'false'),
        edge('no', 'then'),
        edge('yes', 'merge'),
        edge('then', 'merge'),
      ],
    );
    const result = walk(plan, plan.mainNodes, plan.roots, (id) => (id === 'if' ? 'true' : undefined));
    expect(result.order).toEqual([['if'], ['yes', 'no'], ['then'], ['merge']]);
    expect(result.skipped).toEqual(['no', 'then']);
    expect([...result.ran]).toEqual(['if', 'yes', 'merge']);
  });

  it('waits for every input of a node before it settles', () => {
    const plan = planOf(
      [node('a'), node('b'), node('slow'), node('join')],
      [edge('a', 'join'), edge('b', 'slow'), edge('slow', 'join')],
    );
    const ready = readyNodes(plan, plan.mainNodes, new Set(['a', 'b']), { a: undefined, b: undefined });
    expect(ready).toEqual(['slow']);
  });

  it('walks a loop body from its entries, reading the main graph as already settled', () => {
    const plan = planOf(
      [node('start'), node('loop', 'action.loop'), node('b'), node('c')],
      [edge('start', 'loop'), edge('loop', 'b', 'each'), edge('start', 'c'), edge('b', 'c')],
    );
    const body = plan.loopBodies.get('loop') ?? new Set<string>();
    const entries = new Set(loopEntries(plan, 'loop'));
    // `start` is outside the body and did not fire into it: c still waits only on b.
    const result = walk(plan, body, entries, () => undefined, { loop: 'each' });
    expect(result.order).toEqual([['b'], ['c']]);
    expect(result.skipped).toEqual([]);
  });

  it('does not count an edge whose source fired another handle', () => {
    const plan = planOf([node('s', 'action.switch'), node('t')], [edge('s', 't', 'case_a')]);
    expect(liveEdges(plan, 't', new Set(['s']), { s: 'default' })).toEqual([]);
    expect(liveEdges(plan, 't', new Set(['s']), { s: 'case_a' })).toHaveLength(1);
    expect(liveEdges(plan, 't', new Set(), { s: 'case_a' })).toEqual([]);
  });
});
