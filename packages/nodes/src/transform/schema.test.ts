import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { TransformConfig } from './schema';

describe('action.transform config', () => {
  it('is the schema registered for action.transform', () => {
    expect(getNodeType('action.transform')?.config).toBe(TransformConfig);
  });

  it('accepts assignments with expressions', () => {
    expect(
      TransformConfig.safeParse({
        assignments: [{ key: 'full', value: '{{trigger.first}} {{trigger.last}}' }],
      }).success,
    ).toBe(true);
  });

  it('refuses no assignments and an empty key', () => {
    expect(TransformConfig.safeParse({ assignments: [] }).success).toBe(false);
    expect(TransformConfig.safeParse({}).success).toBe(false);
    const result = TransformConfig.safeParse({ assignments: [{ key: '', value: 'x' }] });
    expect(result.error?.issues[0]?.path).toEqual(['assignments', 0, 'key']);
  });
});
