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

/** The identity of a number as typed or as a provider sent it; null when it is not a valid number. */
export function phoneIdentity(raw: string): PhoneIdentity | null {
  const cleaned = raw
    .trim()
    .replace(/^whatsapp:/i, '')
    .replace(/[\s().-]/g, '');
  // `00` is the international call prefix in most of the world: `0049…` is `+49…`.
  const international = cleaned.startsWith('00') ? `+${cleaned.slice(2)}` : cleaned;
  if (!/^\+?\d{7,15}$/.test(international)) return null;
  const parsed = parsePhoneNumberFromString(
    international.startsWith('+') ? international : `+${international}`,
  );
  if (!parsed?.isValid()) return null;
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
