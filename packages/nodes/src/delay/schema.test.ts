import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { DelayConfig } from './schema';

describe('action.delay config', () => {
  it('is the schema registered for action.delay', () => {
    expect(getNodeType('action.delay')?.config).toBe(DelayConfig);
  });

  it('accepts the duration forms of DESIGN.md §5 and an until instant or expression', () => {
    for (const duration of ['90s', '5m', '2h', '1d'])
      expect(DelayConfig.safeParse({ duration }).success, duration).toBe(true);
    expect(DelayConfig.safeParse({ until: '2030-01-01T00:00:00.000Z' }).success).toBe(true);
    expect(DelayConfig.safeParse({ until: '{{trigger.remind_at}}' }).success).toBe(true);
  });

  it("refuses '5x', a bare number, a negative or fractional duration", () => {
    for (const duration of ['5x', '5', '-5m', '1.5h', 'm', '']) {
      expect(DelayConfig.safeParse({ duration }).success, duration).toBe(false);
    }
  });

  it('refuses both duration and until, neither of them, and an empty until', () => {
    expect(DelayConfig.safeParse({ duration: '5m', until: '2030-01-01T00:00:00Z' }).success).toBe(false);
    expect(DelayConfig.safeParse({}).success).toBe(false);
    expect(DelayConfig.safeParse({ until: '' }).success).toBe(false);
  });
});
