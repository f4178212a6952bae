import { createHash } from 'node:crypto';

/** Weft's namespace for name-based ids (a fixed random UUID: changing it would change every id). */
const WEFT_NAMESPACE = Buffer.from('6f0b5cb1d7a94a6e8d4e2f1c93b07a55', 'hex');

/**
 * A UUIDv5 (RFC 9562 §5.5: SHA-1 of namespace + name, version and variant bits set): the same name
 * always gives the same id. Polling derives execution ids from (workflow, item key) with it, so a
 * retried or concurrent poll can never record or start a second run of one item.
 */
export function nameBasedUuid(name: string): string {
  const bytes = createHash('sha1').update(WEFT_NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
