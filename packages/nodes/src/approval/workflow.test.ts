import { describe, expect, it } from 'vitest';
import { fakeWorkflowContext } from '../../test/workflow-context';
import { WorkflowNodeError } from '../workflow-node';
import { approvalWorkflow, MAX_APPROVAL_RECIPIENTS } from './workflow';

describe('action.approval in workflow code', () => {
  it('asks through the approval mechanism with the deadline in ms and fires approved', async () => {
    const ctx = fakeWorkflowContext();
    const result = await approvalWorkflow.execute?.(
      { title: 'Refund 40?', message: 'Order 7', timeout: '2h', on_timeout: 'approve' },
      ctx,
    );
    expect(ctx.calls).toEqual([
      {
        call: 'requestApproval',
        request: { title: 'Refund 40?', message: 'Order 7', timeoutMs: 7_200_000, onTimeout: 'approve' },
      },
    ]);
    expect(result?.handle).toBe('approved');
    expect(result?.output).toMatchObject({ decision: 'approve', decided_by: 'ada@example.com' });
  });

  it('fires rejected on a rejection, waits for ever without a timeout and passes on whom to notify', async () => {
    const ctx = fakeWorkflowContext({ approval: { decision: 'reject', comment: 'no' } });
    const result = await approvalWorkflow.execute?.(
      { title: 'T', notify_email: 'a@x.example, b@x.example', notify_chat: ' +4915112345678 ' },
      ctx,
    );
    expect(ctx.calls).toEqual([
      {
        call: 'requestApproval',
        request: {
          title: 'T',
          message: '',
          onTimeout: 'reject',
          notify: { email: ['a@x.example', 'b@x.example'], chat: '+4915112345678' },
        },
      },
    ]);
    expect(result).toMatchObject({ handle: 'rejected', output: { decision: 'reject', comment: 'no' } });
  });

  it('fails with too_many_recipients when the addresses, once split, exceed the limit, asking no one', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `u${i}@x.example`);
    for (const notify_email of [
      many.join(','),
      [many.slice(0, 15).join(','), many.slice(15, 30).join(',')],
    ]) {
      const ctx = fakeWorkflowContext();
      const failed = approvalWorkflow.execute?.({ title: 'T', notify_email }, ctx);
      await expect(failed).rejects.toBeInstanceOf(WorkflowNodeError);
      await expect(failed).rejects.toMatchObject({ code: 'too_many_recipients' });
      expect(ctx.calls).toEqual([]);
    }
    const ctx = fakeWorkflowContext();
    await approvalWorkflow.execute?.(
      { title: 'T', notify_email: many.slice(0, MAX_APPROVAL_RECIPIENTS).join(', ') },
      ctx,
    );
    expect((ctx.calls[0] as any).request.notify.email).toHaveLength(MAX_APPROVAL_RECIPIENTS);
  });

  it('reads the fired handle back from a recorded output, and stores the chat number masked', () => {
    expect(approvalWorkflow.handleOf?.({ decision: 'approve' })).toBe('approved');
    expect(approvalWorkflow.handleOf?.({ decision: 'reject' })).toBe('rejected');
    expect(approvalWorkflow.maskedFields).toEqual(['notify_chat']);
  });
});
