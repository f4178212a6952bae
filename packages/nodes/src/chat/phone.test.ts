import { describe, expect, it } from 'vitest';
import { phoneHash, phoneIdentity } from './phone';

describe('phoneIdentity', () => {
  it('gives one hash for the forms both providers send and people type', () => {
    const forms = [
      '+1 (415) 555-0100',
      'whatsapp:+14155550100',
      '14155550100',
      '+14155550100',
      '00 1 415 555 0100',
    ];
    const identities = forms.map(phoneIdentity);
    for (const identity of identities) {
      expect(identity).toEqual({
        e164: '+14155550100',
        hash: phoneHash('+14155550100'),
        masked: '+1••••••0100',
      });
    }
  });

  it('is idempotent: the E.164 form of an identity has the same identity', () => {
    const once = phoneIdentity('00 49 151 2345 4567');
    expect(once?.e164).toBe('+4915123454567');
    expect(phoneIdentity(once?.e164 ?? '')).toEqual(once);
  });

  it('masks all but the country code and the last four digits', () => {
    expect(phoneIdentity('+4915123454567')?.masked).toBe('+49•••••••4567');
  });

  it('refuses what is not a valid number: empty, +, too short, letters, other digit scripts, impossible numbers', () => {
    for (const raw of [
      '',
      '+',
      '12345',
      'call me',
      '+1415555010a',
      '＋１４１５５５５０１００',
      '٠١٢٣٤٥٦٧٨٩',
      '+10000000000',
    ]) {
      expect(phoneIdentity(raw), raw).toBeNull();
    }
  });
});
