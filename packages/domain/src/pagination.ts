import { z } from 'zod';

export interface PageRequest {
  page: number;
  perPage: number;
}

/** `page`/`per_page` query parameters. Out of range is a 422, never silently clamped. */
export function pageQuery(defaultPerPage: number, maxPerPage: number) {
  return {
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    per_page: z.coerce.number().int().min(1).max(maxPerPage).default(defaultPerPage),
  };
}

export interface Paginated<T> {
  data: T[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

/** Builds the spec's envelope; links are relative paths that keep the caller's other filters. */
export function paginate<T>(
  data: T[],
  total: number,
  page: PageRequest,
  basePath: string,
  query: Record<string, string | undefined>,
): Paginated<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  const link = (p: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && k !== 'page' && k !== 'per_page') params.set(k, v);
    params.set('page', String(p));
    params.set('per_page', String(page.perPage));
    return `${basePath}?${params.toString()}`;
  };
  return {
    data,
    meta: { current_page: page.page, last_page: lastPage, per_page: page.perPage, total },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page.page > 1 ? link(Math.min(page.page - 1, lastPage)) : null,
      next: page.page < lastPage ? link(page.page + 1) : null,
    },
  };
}

/** A page of a list that also pages by keyset: the spec's envelope plus the neighbouring cursors. */
export interface CursorPaginated<T> extends Paginated<T> {
  meta: Paginated<T>['meta'] & {
    /** False when `total` is the planner's estimate (past an exact-count limit). */
    total_exact: boolean;
    next_cursor: string | null;
    prev_cursor: string | null;
  };
}

/**
 * The spec's envelope for a list with cursors: `links.first`/`links.last` keep the page query as the
 * spec says; `links.next`/`links.prev` carry the cursors, so a client that follows them pages by
 * keyset (the same cost at any depth) without knowing it.
 */
export function paginateWithCursors<T>(
  data: T[],
  page: {
    current: number;
    perPage: number;
    total: number;
    totalExact: boolean;
    nextCursor: string | null;
    prevCursor: string | null;
  },
  basePath: string,
  query: Record<string, string | undefined>,
): CursorPaginated<T> {
  const envelope = paginate(data, page.total, { page: page.current, perPage: page.perPage }, basePath, query);
  const link = (cursor: string) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && k !== 'page' && k !== 'per_page' && k !== 'cursor') params.set(k, v);
    params.set('per_page', String(page.perPage));
    params.set('cursor', cursor);
    return `${basePath}?${params.toString()}`;
  };
  return {
    data,
    meta: {
      ...envelope.meta,
      total_exact: page.totalExact,
      next_cursor: page.nextCursor,
      prev_cursor: page.prevCursor,
    },
    links: {
      first: envelope.links.first,
      last: envelope.links.last,
      // A page past the end has no rows to make a cursor from: the page link still leads back.
      prev: page.prevCursor ? link(page.prevCursor) : envelope.links.prev,
      next: page.nextCursor ? link(page.nextCursor) : null,
    },
  };
}

/** Escapes LIKE metacharacters so user text matches literally (and `%%%%` cannot force a slow scan). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
