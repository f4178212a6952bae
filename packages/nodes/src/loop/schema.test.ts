import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { LoopConfig } from './schema';

describe('action.loop config', () => {
  it('is the schema registered for action.loop', () => {
    expect(getNodeType('action.loop')?.config).toBe(LoopConfig);
  });

  it('accepts an items expression and defaults mode, concurrency and max_items', () => {
    expect(LoopConfig.parse({ items: '{{trigger.items}}' })).toEqual({
      items: '{{trigger.items}}',
      mode: 'sequential',
      concurrency: 10,
      max_items: 10_000,
    });
  });

  it('refuses empty items, an unknown mode and concurrency 0', () => {
    expect(LoopConfig.safeParse({ items: '' }).success).toBe(false);
    expect(LoopConfig.safeParse({ items: '{{x}}', mode: 'random' }).success).toBe(false);
    const result = LoopConfig.safeParse({ items: '{{x}}', concurrency: 0 });
    expect(result.error?.issues[0]?.path).toEqual(['concurrency']);
  });
});
