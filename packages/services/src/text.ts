import { z } from 'zod';

/**
 * Text that PostgreSQL can store: no NUL character and no lone UTF-16 surrogate
 * (both make the database raise an error, which must be a 422 and not a 500).
 */
export const StoredText = z
  .string()
  .refine((v) => !v.includes('\0'), 'must not contain NUL characters')
  .refine((v) => v.isWellFormed(), 'must be valid Unicode');

export const Uuid = z.uuid();

/** True when the value is a UUID; other ids are answered like unknown ones (404). */
export function isUuid(value: string): boolean {
  return Uuid.safeParse(value).success;
}
