import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { MergeConfig } from './schema';

describe('action.merge config', () => {
  it('is the schema registered for action.merge', () => {
    expect(getNodeType('action.merge')?.config).toBe(MergeConfig);
  });

  it('accepts an empty config and defaults mode to wait_all', () => {
    expect(MergeConfig.parse({})).toEqual({ mode: 'wait_all' });
  });

  it('refuses an unknown mode', () => {
    expect(MergeConfig.safeParse({ mode: 'first' }).success).toBe(false);
  });
});
