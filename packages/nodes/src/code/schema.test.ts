import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { CodeConfig } from './schema';

describe('action.code config', () => {
  it('is the schema registered for action.code', () => {
    expect(getNodeType('action.code')?.config).toBe(CodeConfig);
  });

  it('accepts code and defaults the limits', () => {
    expect(CodeConfig.parse({ code: 'return input.a + 1' })).toEqual({
      code: 'return input.a + 1',
      timeout_ms: 1_000,
      memory_mb: 32,
      capture_logs: false,
    });
  });

  it('refuses empty code and limits beyond the caps', () => {
    expect(CodeConfig.safeParse({ code: '' }).success).toBe(false);
    expect(CodeConfig.safeParse({ code: 'x', timeout_ms: 60_000 }).success).toBe(false);
    expect(CodeConfig.safeParse({ code: 'x', memory_mb: 1024 }).success).toBe(false);
    expect(CodeConfig.safeParse({ code: 'x', timeout_ms: 5 }).success).toBe(false);
  });
});
