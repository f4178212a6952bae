import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import { mergeWorkflow } from '../merge/workflow';
import { delayMs, delayWorkflow } from './workflow';

describe('action.delay in workflow code', () => {
  it('waits its duration, or until its instant (0 once past), as a paused step', async () => {
    expect(delayMs({ duration: '90s' }, 0)).toBe(90_000);
    expect(delayMs({ until: '1970-01-01T00:01:00Z' }, 30_000)).toBe(30_000);
    expect(delayMs({ until: '1970-01-01T00:01:00Z' }, 90_000)).toBe(0);
    expect(() => delayMs({ until: 'soon' }, 0)).toThrow(/not a valid date/);
    const ctx = fakeWorkflowContext();
    const result = await delayWorkflow.execute({ duration: '5m' }, ctx);
    expect(ctx.calls).toEqual([{ call: 'pause' }, { call: 'sleep', ms: 300_000 }]);
    expect(Date.parse((result.output as { resumed_at: string }).resumed_at)).not.toBeNaN();
  });
});

describe('action.merge in workflow code', () => {
  it('outputs each live input’s output by node id', async () => {
    const ctx = fakeWorkflowContext({ liveInputs: { a: 1, b: null } });
    expect(await mergeWorkflow.execute({ mode: 'wait_all' }, ctx)).toEqual({ output: { a: 1, b: null } });
  });
});
