import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import { loopWorkflow } from './workflow';

const config = (items: unknown, extra: Record<string, unknown> = {}) => ({
  items,
  mode: 'sequential',
  concurrency: 10,
  max_items: 10_000,
  ...extra,
});

describe('action.loop in workflow code', () => {
  it('walks the body once per item in order and fires done with each walk’s last output', async () => {
    const ctx = fakeWorkflowContext({ walk: (item) => `did ${String(item)}` });
    expect(await loopWorkflow.execute(config(['a', 'b']), ctx)).toEqual({
      output: { count: 2, results: ['did a', 'did b'] },
      handle: 'done',
    });
    expect(ctx.calls).toEqual([
      { call: 'walk', item: 'a', index: 0, count: 2 },
      { call: 'walk', item: 'b', index: 1, count: 2 },
    ]);
  });

  it('keeps results in item order when parallel lanes finish out of order', async () => {
    const ctx = fakeWorkflowContext({ walk: (item) => item });
    const result = await loopWorkflow.execute(
      config([1, 2, 3, 4, 5], { mode: 'parallel', concurrency: 2 }),
      ctx,
    );
    expect(result.output).toEqual({ count: 5, results: [1, 2, 3, 4, 5] });
  });

  it('checkpoints after every 200th iteration, and never waits on a timer', async () => {
    const ctx = fakeWorkflowContext();
    await loopWorkflow.execute(config(Array.from({ length: 401 }, (_, i) => i)), ctx);
    const calls = ctx.calls.map((c) => (c.call === 'walk' ? c.index : c.call));
    expect(calls.filter((c) => typeof c === 'string')).toEqual(['checkpoint', 'checkpoint']);
    expect(calls.indexOf('checkpoint')).toBe(200);
    expect(calls.lastIndexOf('checkpoint')).toBe(401);
  });

  it('fails for good on items that are not an array, or more than max_items', async () => {
    const ctx = fakeWorkflowContext();
    await expect(loopWorkflow.execute(config('nope'), ctx)).rejects.toMatchObject({ code: 'loop_items' });
    await expect(loopWorkflow.execute(config([1, 2, 3], { max_items: 2 }), ctx)).rejects.toMatchObject({
      code: 'loop_too_large',
    });
    expect(ctx.calls).toEqual([]);
  });
});
