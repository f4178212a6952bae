import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import { workflowExecuteWorkflow } from './workflow';

describe('action.workflow.execute in workflow code', () => {
  it('waits for the child by default and outputs its final status', async () => {
    const ctx = fakeWorkflowContext({ childStatus: 'partial' });
    expect(
      await workflowExecuteWorkflow.execute({ workflow_id: 'wf', input: { a: 1 }, wait: true }, ctx),
    ).toEqual({
      output: { execution_id: 'child-1', status: 'partial' },
    });
    expect(ctx.calls).toEqual([
      { call: 'prepare', workflowId: 'wf', payload: { a: 1 } },
      { call: 'run', executionId: 'child-1' },
    ]);
  });

  it('with wait false starts the child and moves on; without input it passes the outgoing trigger', async () => {
    const ctx = fakeWorkflowContext({ outgoingPayload: { lead: 9 } });
    expect(await workflowExecuteWorkflow.execute({ workflow_id: 'wf', wait: false }, ctx)).toEqual({
      output: { execution_id: 'child-1', status: 'pending' },
    });
    expect(ctx.calls).toEqual([
      { call: 'prepare', workflowId: 'wf', payload: { lead: 9 } },
      { call: 'start', executionId: 'child-1' },
    ]);
  });
});
