import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { autoLayout, GRID } from '../src/lib/canvas/layout';
import { fromCanvas, type SavedEdge, type SavedNode, toCanvas } from '../src/lib/canvas/mapper';

const node = fc.record(
  {
    id: fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
    type: fc.constantFrom('action.transform', 'action.condition', 'action.http_request', 'action.loop'),
    name: fc.string({ maxLength: 12 }),
    config: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue(), { maxKeys: 3 }),
    on_failure: fc.constantFrom('continue' as const, 'abort' as const),
    position: fc.record({
      x: fc.integer({ min: -2000, max: 2000 }),
      y: fc.integer({ min: -2000, max: 2000 }),
    }),
  },
  { requiredKeys: ['id', 'type'] },
);

const graph = fc.uniqueArray(node, { selector: (n) => n.id, minLength: 1, maxLength: 12 }).chain((nodes) => {
  const ids = nodes.map((n) => n.id);
  const edge = fc.record(
    {
      id: fc.uuid(),
      source: fc.constantFrom(...ids),
      target: fc.constantFrom(...ids),
      source_handle: fc.option(fc.constantFrom('true', 'false', 'each', 'done', 'default'), { nil: null }),
    },
    { requiredKeys: ['source', 'target'] },
  );
  return fc.tuple(
    fc.constant(nodes as SavedNode[]),
    fc.array(edge, { maxLength: 16 }) as fc.Arbitrary<SavedEdge[]>,
  );
});

describe('graph ⇄ canvas mapper', () => {
  it('a round trip changes nothing (absent fields stay absent)', () => {
    fc.assert(
      fc.property(graph, ([nodes, edges]) => {
        const canvas = toCanvas(nodes, edges);
        expect(fromCanvas(canvas.nodes, canvas.edges)).toEqual({ nodes, edges });
      }),
    );
  });

  it('draws handles and labels from source_handle, and asks for a layout only when a node has no position', () => {
    const canvas = toCanvas(
      [
        { id: 'check', type: 'action.condition', position: { x: 0, y: 0 } },
        { id: 'yes', type: 'action.transform' },
      ],
      [{ source: 'check', target: 'yes', source_handle: 'true' }],
    );
    expect(canvas.needsLayout).toBe(true);
    expect(canvas.edges[0]).toMatchObject({ id: 'check->yes:true', sourceHandle: 'true', label: 'true' });
    // The placeholder position of an unplaced node is not saved; a layout (or a drag) places it.
    expect(fromCanvas(canvas.nodes, canvas.edges).nodes[1]).not.toHaveProperty('position');
  });
});

describe('automatic layout (dagre)', () => {
  it('places every node left to right along the edges, on the 16 px grid, without overlaps', () => {
    const { nodes, edges } = toCanvas(
      ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, type: 'action.transform' })),
      [
        { source: 'a', target: 'b' },
        { source: 'a', target: 'c' },
        { source: 'b', target: 'd' },
        { source: 'c', target: 'd' },
        { source: 'd', target: 'e' },
      ],
    );
    const placed = autoLayout(nodes, edges);
    const at = Object.fromEntries(placed.map((n) => [n.id, n.position]));
    for (const edge of edges) expect(at[edge.source]?.x).toBeLessThan(at[edge.target]?.x as number);
    for (const n of placed) {
      expect(n.position.x % GRID).toBe(0);
      expect(n.position.y % GRID).toBe(0);
      expect(n.data.unplaced).toBe(false);
    }
    const b = at.b as { x: number; y: number };
    const c = at.c as { x: number; y: number };
    expect(Math.abs(b.y - c.y)).toBeGreaterThanOrEqual(64); // siblings do not overlap
    // After a layout the positions are saved.
    expect(fromCanvas(placed, edges).nodes.every((n) => n.position !== undefined)).toBe(true);
  });
});
