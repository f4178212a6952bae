import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { EmailSendConfig } from './schema';

describe('action.email.send config', () => {
  it('is the schema registered for action.email.send', () => {
    expect(getNodeType('action.email.send')?.config).toBe(EmailSendConfig);
  });

  it('accepts one recipient or a list', () => {
    expect(EmailSendConfig.safeParse({ to: '{{trigger.email}}', subject: 'Hi', body: 'Hello' }).success).toBe(
      true,
    );
    expect(
      EmailSendConfig.safeParse({ to: ['a@x.test', 'b@x.test'], cc: 'c@x.test', subject: 'Hi', body: '' })
        .success,
    ).toBe(true);
  });

  it('refuses a missing subject, an empty recipient list and an overlong subject', () => {
    const result = EmailSendConfig.safeParse({ to: 'a@x.test', body: 'Hello' });
    expect(result.error?.issues.map((i) => i.path)).toEqual([['subject']]);
    expect(EmailSendConfig.safeParse({ to: [], subject: 'Hi', body: 'x' }).success).toBe(false);
    expect(EmailSendConfig.safeParse({ to: 'a@x.test', subject: 'x'.repeat(999), body: 'x' }).success).toBe(
      false,
    );
  });
});
