import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { SwitchConfig } from './schema';

describe('action.switch config', () => {
  it('is the schema registered for action.switch', () => {
    expect(getNodeType('action.switch')?.config).toBe(SwitchConfig);
  });

  it('accepts cases with distinct keys', () => {
    expect(
      SwitchConfig.safeParse({
        value: '{{trigger.tier}}',
        cases: [
          { key: 'gold', equals: 'g' },
          { key: 'silver', equals: 's' },
        ],
      }).success,
    ).toBe(true);
  });

  it('refuses the reserved key default, a key with a dot and no cases', () => {
    const reserved = SwitchConfig.safeParse({ value: 'x', cases: [{ key: 'default', equals: 'd' }] });
    expect(reserved.error?.issues[0]?.path).toEqual(['cases', 0, 'key']);
    expect(SwitchConfig.safeParse({ value: 'x', cases: [{ key: 'a.b', equals: 'd' }] }).success).toBe(false);
    expect(SwitchConfig.safeParse({ value: 'x', cases: [] }).success).toBe(false);
  });

  it('refuses two cases with the same key (the handle would be ambiguous, the second case unreachable)', () => {
    const result = SwitchConfig.safeParse({
      value: 'x',
      cases: [
        { key: 'gold', equals: 'g' },
        { key: 'gold', equals: 'G' },
      ],
    });
    expect(result.success).toBe(false);
  });
});
