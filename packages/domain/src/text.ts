import { z } from 'zod';

/**
 * The pattern the OpenAPI document gives storable text: no NUL character. It cannot also name lone
 * UTF-16 surrogates (which `storedText` refuses too): Rust and Python regex engines, which
 * validators such as schemathesis use, have no spelling for a surrogate code point.
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000]*$';

/**
 * `schema` (a string schema with its own lengths, trimming or format) that also refuses what
 * PostgreSQL cannot store. Use this rather than piping a plain string into `schema`: a pipe shows
 * only its input side in the OpenAPI document, so the lengths and formats would go missing there.
 *
 * @example storedText(z.string().trim().min(1).max(200))
 */
export function storedText<T extends z.ZodType<string, string>>(schema: T): T {
  return schema
    .refine((v) => !v.includes('\0'), 'must not contain NUL characters')
    .refine((v) => v.isWellFormed(), 'must be valid Unicode');
}

/** Any text PostgreSQL can store. */
export const StoredText = storedText(z.string());

export const Uuid = z.uuid();

/** True when the value is a UUID; other ids are answered like unknown ones (404). */
export function isUuid(value: string): boolean {
  return Uuid.safeParse(value).success;
}

/**
 * For the OpenAPI document: http(s) URLs that the server's URL checks accept (WHATWG parsing, no
 * user name or password), with a host whose last label is a name, so never an out-of-range IPv4
 * number. The server accepts more (addresses, ports up to 65535); this is the part a client can
 * rely on from the document alone.
 */
export const HTTP_URL_PATTERN = '^https?://([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(:[0-9]{1,4})?(/[!-~]*)?$';
