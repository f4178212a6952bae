import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseDeliveryRetryAfter as parseRetryAfter } from './deliver';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
  });

  it('ignores absent or unreadable values and clamps dates in the past and far future', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(6 * 60 * 60 * 1000);
  });
});

describe('backoffDelayMs', () => {
  it('doubles from the initial interval up to the maximum', () => {
    const policy = { initialIntervalMs: 10_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000 };
    expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(policy, attempt))).toEqual([
      10_000, 20_000, 40_000, 80_000,
    ]);
    expect(backoffDelayMs(policy, 20)).toBe(3_600_000);
  });
});
