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

  it('accepts numbers of E.164 shape the metadata calls unassigned: +1 555 test numbers, new ranges', () => {
    // Providers hand out +1 555 01xx numbers as test business numbers; libphonenumber's isValid()
    // refuses them, so they were dropped inbound and refused on send before the provider was asked.
    for (const [raw, e164] of [
      ['+1 555 010 0199', '+15550100199'],
      ['15551234567', '+15551234567'],
      ['whatsapp:+15555550123', '+15555550123'],
      ['+882 1234 567 890', '+8821234567890'],
    ] as const) {
      const identity = phoneIdentity(raw);
      expect(identity?.e164, raw).toBe(e164);
      expect(identity?.hash, raw).toBe(phoneHash(e164));
    }
    expect(phoneIdentity('+15550100199')?.masked).toBe('+1••••••0199');
  });

  it('refuses what is not E.164 shape: empty, +, too short or long, letters, other digit scripts, impossible lengths, no country', () => {
    for (const raw of [
      '',
      '+',
      '12345',
      '+1234567',
      '+1234567890123456',
      'call me',
      '+1415555010a',
      '＋１４１５５５５０１００',
      '٠١٢٣٤٥٦٧٨٩',
      // +1 numbers have 10 digits after the country code: 9 and 11 are impossible lengths.
      '+1555123456',
      '+155512345678',
      '+999123456789',
    ]) {
      expect(phoneIdentity(raw), raw).toBeNull();
    }
  });
});
