import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { ConditionConfig } from './schema';

describe('action.condition config', () => {
  it('is the schema registered for action.condition', () => {
    expect(getNodeType('action.condition')?.config).toBe(ConditionConfig);
  });

  it('accepts conditions and defaults combine to and; unary operators need no right side', () => {
    const parsed = ConditionConfig.parse({ conditions: [{ left: '{{trigger.x}}', operator: 'is_empty' }] });
    expect(parsed.combine).toBe('and');
  });

  it('refuses an unknown operator, an unknown combine and an empty list', () => {
    const result = ConditionConfig.safeParse({ conditions: [{ left: 'a', operator: 'like', right: 'b' }] });
    expect(result.error?.issues[0]?.path).toEqual(['conditions', 0, 'operator']);
    expect(
      ConditionConfig.safeParse({
        conditions: [{ left: 'a', operator: 'equals', right: 'b' }],
        combine: 'xor',
      }).success,
    ).toBe(false);
    expect(ConditionConfig.safeParse({ conditions: [] }).success).toBe(false);
  });
});
