import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * One person, one identity, whichever provider spoke (DESIGN §9): numbers are put in E.164 with
 * their `+` (the cloud provider sends `16505551234`, the gateway `whatsapp:+16505551234`) before
 * hashing. The plain number is never stored: rows hold the hash, outputs the masked form.
 */
export interface PhoneIdentity {
  /** `+16505551234`: in memory only, for the provider call. */
  e164: string;
  /** SHA-256 hex of the E.164 form: what rows store. */
  hash: string;
  /** `+1•••••1234`: what outputs, logs and answers show. */
  masked: string;
}

/**
 * The identity of a number as typed or as a provider sent it; null when it is not in E.164 shape.
 *
 * Shape only (DESIGN §9): `+` (optional here: the cloud provider omits it), a country code, 8-15
 * digits in all, and a possible length for that country. Not validity: the phone metadata calls
 * the +1 555 ranges providers hand out as test business numbers unassigned, and lags behind new
 * ranges; whether a number is a chat user is the provider's answer (mapped to `invalid_phone`).
 */
export function phoneIdentity(raw: string): PhoneIdentity | null {
  const cleaned = raw
    .trim()
    .replace(/^whatsapp:/i, '')
    .replace(/[\s().-]/g, '');
  // `00` is the international call prefix in most of the world: `0049…` is `+49…`.
  const international = cleaned.startsWith('00') ? `+${cleaned.slice(2)}` : cleaned;
  if (!/^\+?\d{8,15}$/.test(international)) return null;
  const parsed = parsePhoneNumberFromString(
    international.startsWith('+') ? international : `+${international}`,
  );
  // isPossible: a length the country's numbers can have (no check that the range is assigned).
  if (!parsed?.isPossible()) return null;
  const e164 = parsed.number;
  return { e164, hash: phoneHash(e164), masked: maskPhone(e164, parsed.countryCallingCode) };
}

export function phoneHash(e164: string): string {
  return createHash('sha256').update(e164).digest('hex');
}

function maskPhone(e164: string, countryCode: string): string {
  const national = e164.slice(1 + countryCode.length);
  return `+${countryCode}${'•'.repeat(Math.max(0, national.length - 4))}${national.slice(-4)}`;
}
