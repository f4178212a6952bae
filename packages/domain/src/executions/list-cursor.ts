import { z } from 'zod';
import { validationError } from '../errors';

/**
 * Where a keyset page of the executions list starts: the sort key `(started_at, id)` of the row next
 * to it, on which side of that row the page lies, and the page number it is (for `meta` only).
 * The cursor grants nothing: the list is still filtered to the caller's organization (and RLS), so a
 * hand-made cursor can only move the caller within their own executions. It is validated, not signed.
 */
export interface ExecutionCursor {
  startedAt: Date;
  id: string;
  page: number;
  /** `older`: the rows after this key in the list (next page); `newer`: the rows before it. */
  direction: 'older' | 'newer';
}

const CursorJson = z
  .object({
    v: z.literal(1),
    t: z.iso.datetime({ precision: 3 }),
    i: z.uuid(),
    p: z.number().int().min(1).max(100_000_000),
    d: z.enum(['o', 'n']),
  })
  .strict();

/**
 * An opaque, URL-safe cursor (base64url of a small JSON object).
 * @example encodeExecutionCursor({ startedAt: row.startedAt, id: row.id, page: 2, direction: 'older' })
 */
export function encodeExecutionCursor(cursor: ExecutionCursor): string {
  const json = {
    v: 1,
    t: cursor.startedAt.toISOString(),
    i: cursor.id,
    p: cursor.page,
    d: cursor.direction === 'older' ? 'o' : 'n',
  };
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

/** Reads a cursor this API gave out; anything else is a 422 on `cursor`, never a 500. */
export function decodeExecutionCursor(text: string): ExecutionCursor {
  const invalid = () =>
    validationError({
      cursor: ['This cursor was not given out by this API; start again from links.first.'],
    });
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(text)) throw invalid();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const parsed = CursorJson.safeParse(json);
  if (!parsed.success) throw invalid();
  const { t, i, p, d } = parsed.data;
  return { startedAt: new Date(t), id: i.toLowerCase(), page: p, direction: d === 'o' ? 'older' : 'newer' };
}
