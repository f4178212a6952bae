import { describe, expect, it } from 'vitest';
import { toolResult } from './tool-result';

const graph = {
  nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
  edges: [
    { source: 'a', target: 'b' },
    { source: 'a', target: 'c' },
  ],
};
const step = (node_id: string, output: unknown, status = 'completed') => ({ node_id, status, output });

describe('a tool workflow result', () => {
  it('is the output of the one completed leaf; skipped and inner nodes do not count', () => {
    expect(toolResult(graph, [step('a', 1), step('b', 2), step('c', null, 'skipped')])).toBe(2);
  });

  it('is an object keyed by node id when several leaves completed, the last iteration of each', () => {
    expect(toolResult(graph, [step('a', 1), step('b', 2), step('c', 3), step('b', 4)])).toEqual({
      c: 3,
      b: 4,
    });
  });

  it('is null when no leaf completed', () => {
    expect(toolResult(graph, [step('a', 1), step('b', 2, 'failed')])).toBeNull();
  });
});
