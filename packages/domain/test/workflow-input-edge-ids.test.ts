import { describe, expect, it } from 'vitest';
import { WorkflowInput } from '../src/workflows/workflow-input';

const transform = (id: string) => ({
  id,
  type: 'action.transform',
  config: { assignments: [{ key: 'k', value: 'v' }] },
});

describe('WorkflowInput edge ids', () => {
  it('gives every edge without an id a distinct id', () => {
    const parsed = WorkflowInput.parse({
      name: 'x',
      trigger_type: 'manual',
      nodes: [transform('a'), transform('b'), transform('c')],
      edges: [
        { source: 'a', target: 'b' },
        { source: 'a', target: 'c' },
        { source: 'b', target: 'c' },
      ],
    });
    const ids = parsed.edges.map((e) => e.id);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(3);
  });

  it('never gives a generated id that an edge of the same graph already carries', () => {
    // Edge 1 has no id; the generated one (`e1-a-b`) must not repeat edge 0's explicit id.
    const result = WorkflowInput.safeParse({
      name: 'x',
      trigger_type: 'manual',
      nodes: [transform('a'), transform('b')],
      edges: [
        { id: 'e1-a-b', source: 'a', target: 'b' },
        { source: 'a', target: 'b' },
      ],
    });
    if (!result.success) return; // refusing the graph with a 422 is acceptable too
    const ids = result.data.edges.map((e) => e.id);
    expect(new Set(ids).size, `edge ids ${JSON.stringify(ids)}`).toBe(ids.length);
  });
});
