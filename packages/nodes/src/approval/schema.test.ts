import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { ApprovalConfig } from './schema';

describe('action.approval config', () => {
  it('is the schema registered for action.approval, with approved and rejected outputs', () => {
    const type = getNodeType('action.approval');
    expect(type?.config).toBe(ApprovalConfig);
    expect(type?.outputs).toEqual(['approved', 'rejected']);
  });

  it('needs a title, defaults to rejecting at a deadline and waits for ever without a timeout', () => {
    expect(ApprovalConfig.parse({ title: 'Refund?' })).toEqual({
      title: 'Refund?',
      message: '',
      on_timeout: 'reject',
    });
    expect(ApprovalConfig.safeParse({}).error?.issues[0]?.path).toEqual(['title']);
  });

  it('refuses an unknown on_timeout, a bad timeout and unknown keys', () => {
    expect(ApprovalConfig.safeParse({ title: 't', on_timeout: 'ignore' }).success).toBe(false);
    expect(ApprovalConfig.safeParse({ title: 't', timeout: '2 days' }).error?.issues[0]?.path).toEqual([
      'timeout',
    ]);
    expect(ApprovalConfig.safeParse({ title: 't', notify: {} }).success).toBe(false);
  });

  it('takes e-mail recipients as a list or a comma string, and a chat number', () => {
    expect(
      ApprovalConfig.safeParse({ title: 't', notify_email: ['a@x.example', '{{trigger.boss}}'] }).success,
    ).toBe(true);
    expect(ApprovalConfig.safeParse({ title: 't', notify_email: 'a@x.example, b@x.example' }).success).toBe(
      true,
    );
    expect(ApprovalConfig.safeParse({ title: 't', notify_email: [] }).success).toBe(false);
    expect(ApprovalConfig.safeParse({ title: 't', notify_chat: '+4915112345678' }).success).toBe(true);
  });
});
