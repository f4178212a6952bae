import { describe, expect, it } from 'vitest';
import { parseApprovalReply } from './chat-reply';

describe('parseApprovalReply', () => {
  it('reads the verb, the code in any case and an optional comment', () => {
    expect(parseApprovalReply('APPROVE K7P2QX')).toEqual({
      decision: 'approve',
      code: 'K7P2QX',
      comment: null,
    });
    expect(parseApprovalReply('  reject k7p2qx: not this month\nsorry ')).toEqual({
      decision: 'reject',
      code: 'K7P2QX',
      comment: 'not this month\nsorry',
    });
  });

  it('leaves every other message alone', () => {
    for (const text of [
      null,
      '',
      'approve',
      'approve K7P2QX1',
      'please approve K7P2QX',
      'yes K7P2QX',
      'APPROVEK7P2QX',
    ]) {
      expect(parseApprovalReply(text), String(text)).toBeNull();
    }
  });
});
