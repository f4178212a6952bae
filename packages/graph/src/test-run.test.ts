import { describe, expect, it } from 'vitest';
import { planGraph } from './plan';
import type { GraphEdge, GraphNode } from './schema';
import { checkTestRunBounds, retryScope, testRunScope } from './test-run';

const n = (id: string, type = 'action.transform'): GraphNode => ({
  id,
  type,
  config: {},
  on_failure: 'continue',
});
// a → b → c → d, a → side (a parallel branch), loop each→ body, loop done → after
const plan = planGraph(
  [n('a'), n('b'), n('c'), n('d'), n('side'), n('loop', 'action.loop'), n('body'), n('after')],
  [
    { source: 'a', target: 'b' },
    { source: 'b', target: 'c' },
    { source: 'c', target: 'd' },
    { source: 'a', target: 'side' },
    { source: 'b', target: 'loop' },
    { source: 'loop', target: 'body', source_handle: 'each' },
    { source: 'loop', target: 'after', source_handle: 'done' },
  ] satisfies GraphEdge[],
  (node) => node.type === 'action.loop',
);

describe('test-run bounds', () => {
  it('before start_at: the nodes upstream of what runs; sibling branches (and their loop bodies) are stopped', () => {
    expect([...testRunScope(plan, { start_at: 'c' }).before].sort()).toEqual(['a', 'b']);
    expect([...testRunScope(plan, { start_at: 'c' }).stopped].sort()).toEqual([
      'after',
      'body',
      'loop',
      'side',
    ]);
  });

  it('a node feeding a merge after start_at is before, not stopped', () => {
    const merged = planGraph(
      [n('a'), n('b'), n('c'), n('m')],
      [
        { source: 'a', target: 'b' },
        { source: 'a', target: 'c' },
        { source: 'b', target: 'm' },
        { source: 'c', target: 'm' },
      ] satisfies GraphEdge[],
      () => false,
    );
    const scope = testRunScope(merged, { start_at: 'b' });
    expect([...scope.before].sort()).toEqual(['a', 'c']);
    expect(scope.stopped.size).toBe(0);
  });

  it('stop_after keeps it, its ancestors and the bodies of kept loops; the rest is stopped', () => {
    expect([...testRunScope(plan, { stop_after: 'c' }).stopped].sort()).toEqual([
      'after',
      'body',
      'd',
      'loop',
      'side',
    ]);
    expect([...testRunScope(plan, { stop_after: 'loop' }).stopped].sort()).toEqual([
      'after',
      'c',
      'd',
      'side',
    ]);
  });

  it('one step: start_at = stop_after runs that node alone', () => {
    const scope = testRunScope(plan, { start_at: 'c', stop_after: 'c' });
    const runs = [...plan.byId.keys()].filter((id) => !scope.before.has(id) && !scope.stopped.has(id));
    expect(runs).toEqual(['c']);
  });

  it('names what is wrong: an unknown step, one in a loop body, a stop before the start', () => {
    expect(checkTestRunBounds(plan, { start_at: 'nope' })).toEqual({
      start_at: ['This workflow has no step "nope".'],
    });
    expect(Object.keys(checkTestRunBounds(plan, { stop_after: 'body' }))).toEqual(['stop_after']);
    expect(Object.keys(checkTestRunBounds(plan, { start_at: 'd', stop_after: 'b' }))).toEqual(['stop_after']);
    expect(checkTestRunBounds(plan, { start_at: 'b', stop_after: 'd' })).toEqual({});
    expect(checkTestRunBounds(plan, { start_at: 'c', stop_after: 'c' })).toEqual({});
  });
});

describe('retry scope of a partial execution', () => {
  it('a failed main step runs again with everything after it; its siblings are reused', () => {
    const scope = retryScope(plan, [{ nodeId: 'b', iteration: -1 }]);
    expect([...scope.always].sort()).toEqual(['after', 'b', 'body', 'c', 'd', 'loop']);
    expect(scope.always.has('a')).toBe(false);
    expect(scope.always.has('side')).toBe(false);
    expect(scope.at.size).toBe(0);
  });

  it('a failed body step runs again at its iteration only; its loop and what follows the loop run again', () => {
    const scope = retryScope(plan, [{ nodeId: 'body', iteration: 2 }]);
    expect([...scope.at]).toEqual(['body:2']);
    expect([...scope.always].sort()).toEqual(['after', 'loop']);
  });

  it('nothing failed: nothing runs again', () => {
    const scope = retryScope(plan, []);
    expect(scope.always.size + scope.at.size).toBe(0);
  });
});
