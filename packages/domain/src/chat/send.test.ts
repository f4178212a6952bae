import { describe, expect, it } from 'vitest';
import { maskNumbersIn } from './send';

describe('maskNumbersIn', () => {
  it('masks phone numbers a provider quotes in its error text, leaving codes and short numbers', () => {
    expect(maskNumbersIn("The 'To' number +14155550100 is not a valid phone number (21211)")).toBe(
      "The 'To' number +14•••••0100 is not a valid phone number (21211)",
    );
    expect(maskNumbersIn('(#131047) Re-engagement message for 49 151 2345 4567')).toBe(
      '(#131047) Re-engagement message for +49•••••••4567',
    );
  });
});
