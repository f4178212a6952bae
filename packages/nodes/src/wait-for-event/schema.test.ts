import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { WaitForEventConfig } from './schema';

describe('action.wait_for_event config', () => {
  it('is the schema registered for action.wait_for_event', () => {
    expect(getNodeType('action.wait_for_event')?.config).toBe(WaitForEventConfig);
  });

  it('accepts an event with a match and defaults the timeout to 1d', () => {
    const parsed = WaitForEventConfig.parse({
      event: 'order.paid',
      match: { field: 'order_id', equals: '{{trigger.id}}' },
    });
    expect(parsed.timeout).toBe('1d');
  });

  it('refuses an event without a category, an upper-case event and a bad timeout', () => {
    expect(WaitForEventConfig.safeParse({ event: 'paid' }).success).toBe(false);
    expect(WaitForEventConfig.safeParse({ event: 'Order.Paid' }).success).toBe(false);
    const result = WaitForEventConfig.safeParse({ event: 'order.paid', timeout: '1 day' });
    expect(result.error?.issues[0]?.path).toEqual(['timeout']);
  });
});
