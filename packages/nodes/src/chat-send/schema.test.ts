import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { ChatSendConfig } from './schema';

describe('action.chat.send config', () => {
  it('is the schema registered for action.chat.send', () => {
    expect(getNodeType('action.chat.send')?.config).toBe(ChatSendConfig);
  });

  it('accepts a phone number or expression and a message', () => {
    expect(
      ChatSendConfig.safeParse({ to: '{{trigger.phone}}', message: 'Hi', fallback_template: 'hello_world' })
        .success,
    ).toBe(true);
  });

  it('refuses an empty message and a message over 4096 characters', () => {
    expect(ChatSendConfig.safeParse({ to: '+15551234567', message: '' }).success).toBe(false);
    const result = ChatSendConfig.safeParse({ to: '+15551234567', message: 'x'.repeat(4097) });
    expect(result.error?.issues[0]?.path).toEqual(['message']);
    expect(ChatSendConfig.safeParse({ to: '', message: 'Hi' }).success).toBe(false);
  });
});
