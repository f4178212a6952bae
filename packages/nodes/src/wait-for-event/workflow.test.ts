import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import { waitForEventWorkflow } from './workflow';

const config = { event: 'order.paid', match: { field: 'order.id', equals: '42' }, timeout: '1h' };

describe('action.wait_for_event in workflow code', () => {
  it('pauses until an event of that name whose field matches, and fires received with its payload', async () => {
    const ctx = fakeWorkflowContext({
      events: [
        { event: 'order.shipped', payload: { order: { id: 42 } } },
        { event: 'order.paid', payload: { order: { id: 7 } } },
        { event: 'order.paid', payload: { order: { id: 42 }, total: 10 } },
      ],
    });
    expect(await waitForEventWorkflow.execute(config, ctx)).toEqual({
      output: { timed_out: false, event: { order: { id: 42 }, total: 10 } },
      handle: 'received',
    });
    expect(ctx.calls).toEqual([{ call: 'pause' }, { call: 'waitUntil', timeoutMs: 3_600_000 }]);
  });

  it('fires timeout when nothing matched, and never follows prototype keys', async () => {
    const ctx = fakeWorkflowContext({ events: [{ event: 'order.paid', payload: { order: { id: 1 } } }] });
    expect(await waitForEventWorkflow.execute(config, ctx)).toEqual({
      output: { timed_out: true, event: null },
      handle: 'timeout',
    });
    const proto = { ...config, match: { field: '__proto__', equals: '[object Object]' } };
    const result = await waitForEventWorkflow.execute(
      proto,
      fakeWorkflowContext({ events: [{ event: 'order.paid', payload: {} }] }),
    );
    expect(result.handle).toBe('timeout');
  });
});
