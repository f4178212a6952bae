import { expect, it } from 'vitest';
import { expectNoLeak } from './helpers';

/**
 * The table runner of the bad-input suites (security.md §13): each case sends one request; a
 * refused one must be a 4xx in the error envelope that stored and changed nothing.
 */
export type Outcome = 'refused' | 'accepted' | 'either';

export interface BadInputCase {
  name: string;
  send: () => Response | Promise<Response>;
  outcome: Outcome;
  /** For refused cases: the exact status (default any 4xx). */
  status?: number;
  /** For refused cases: a field the envelope must name. */
  field?: string;
  /** For refused cases: the error code. */
  code?: string;
  /** Extra assertions on an accepted answer. */
  check?: (res: Response, body: any) => Promise<void> | void;
}

/** `state` captures what a refused request must leave unchanged (row counts, fingerprints). */
export function badInputTable(state: () => Promise<unknown>) {
  async function run(c: BadInputCase) {
    const before = await state();
    const res = await c.send();
    const text = await res.text();
    const status = res.status;
    const shown = `${c.name}: ${text.slice(0, 300)}`;
    expect(status, shown).toBeLessThan(500);
    expectNoLeak(text);
    const body = text ? JSON.parse(text) : null;

    if (c.outcome === 'refused' || (c.outcome === 'either' && status >= 400)) {
      expect(status, shown).toBeGreaterThanOrEqual(400);
      if (c.status) expect(status, shown).toBe(c.status);
      expect(body.error).toEqual({
        code: expect.any(String),
        message: expect.any(String),
        fields: expect.any(Object),
        request_id: res.headers.get('x-request-id'),
      });
      if (c.code) expect(body.error.code).toBe(c.code);
      if (status === 422) expect(['validation_error', 'idempotency_conflict']).toContain(body.error.code);
      if (status === 404) expect(body.error.code).toBe('not_found');
      if (c.field) expect(Object.keys(body.error.fields), shown).toContain(c.field);
      expect(await state(), `${c.name}: nothing stored or changed`).toEqual(before);
    } else {
      expect(status, shown).toBeLessThan(300);
      await c.check?.(res, body);
    }
  }
  return {
    run,
    table(cases: BadInputCase[]) {
      for (const c of cases) it(c.name, () => run(c));
    },
  };
}

/** Ids that name nothing: malformed, traversal, injection, oversize, bad encodings. */
export const BAD_IDS = [
  'abc',
  '1',
  '00000000-0000-0000-0000-000000000000',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  encodeURIComponent("1' OR '1'='1"),
  'x'.repeat(10_000),
  '0190b6a4-1111-7222-8333-44445555666g',
  '{0190b6a4-1111-7222-8333-444455556666}',
  '%ED%A0%80',
  '%FF',
];

export const idLabel = (id: string) => (id.length > 40 ? `${id.slice(0, 12)}…(${id.length})` : id);

export const deepArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
export const deepObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
