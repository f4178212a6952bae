import { createTestApi, type TestApi } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, readJson } from './helpers';

/**
 * GET /executions paged by offset (`page`) and by keyset (`cursor`). Rows are inserted by the owner
 * (no engine needed); many share a `started_at`, so the id must break every tie.
 */
let api: TestApi;
let acme: { organizationId: string; key: string };
let globex: { organizationId: string; key: string };
const flowA = '0190aaaa-0000-7000-8000-000000000001';
const flowB = '0190aaaa-0000-7000-8000-000000000002';
const STATUSES = ['success', 'partial', 'failed', 'running', 'waiting', 'cancelled'];

/** `count` executions; every 4 consecutive ones share one started_at (a second apart per group). */
async function seed(organizationId: string, count: number, idPrefix: string) {
  await api.db.admin`
    insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph,
                            status, trigger, trigger_payload, started_at)
    select (${idPrefix} || lpad(to_hex(i), 12, '0'))::uuid, ${organizationId},
           case when i % 3 = 0 then ${flowB}::uuid else ${flowA}::uuid end, 'wf', 1, '{}'::jsonb,
           (${STATUSES}::text[])[1 + i % 6], 'api', '{}'::jsonb,
           timestamptz '2025-01-01T00:00:00Z' + (i / 4) * interval '1 second'
      from generate_series(1, ${count}) i`;
}

/** The order the list promises, straight from SQL. */
async function expected(organizationId: string, where = api.db.admin`true`) {
  const rows = await api.db.admin<{ id: string }[]>`
    select id from executions where organization_id = ${organizationId} and ${where}
     order by started_at desc, id desc`;
  return rows.map((r) => r.id);
}

async function get(path: string, key = acme.key) {
  const res = await api.request('GET', path, { key });
  const body = await readJson(res);
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
  return body;
}

/** Follows links.next from `path` (page `firstPage`) to the end, checking meta on the way. */
async function walk(path: string, key = acme.key, firstPage = 1) {
  const ids: string[] = [];
  const pages: any[] = [];
  let next: string | null = path;
  while (next) {
    const body = await get(next, key);
    pages.push(body);
    expect(body.meta.current_page).toBe(firstPage + pages.length - 1);
    ids.push(...body.data.map((e: { id: string }) => e.id));
    next = body.links.next;
    expect(pages.length).toBeLessThan(100);
  }
  return { ids, pages };
}

beforeAll(async () => {
  api = await createTestApi();
  acme = await api.createOrg('Acme');
  globex = await api.createOrg('Globex');
  await seed(acme.organizationId, 97, '0190bbbb-0000-7000-8000-');
  await seed(globex.organizationId, 23, '0190cccc-0000-7000-8000-');
}, 120_000);
afterAll(() => api?.close());

describe('GET /executions with cursors', () => {
  it('walks every row exactly once, newest first, ties broken by id; page links give the same pages', async () => {
    const all = await expected(acme.organizationId);
    const { ids, pages } = await walk('/api/v1/executions?per_page=10');
    expect(ids).toEqual(all);
    expect(new Set(ids).size).toBe(97);
    expect(pages).toHaveLength(10);
    const last = pages.at(-1);
    expect(last.meta).toMatchObject({ current_page: 10, last_page: 10, total: 97, total_exact: true });
    expect(last.meta.next_cursor).toBeNull();
    // links.next is the cursor; the spec's first/last keep the page query.
    expect(pages[0].links.next).toBe(`/api/v1/executions?per_page=10&cursor=${pages[0].meta.next_cursor}`);
    expect(pages[0].links.first).toBe('/api/v1/executions?page=1&per_page=10');
    expect(pages[0].links.last).toBe('/api/v1/executions?page=10&per_page=10');
    // Offset pages hold the same rows as the keyset pages.
    for (const n of [1, 2, 7, 10]) {
      const byPage = await get(`/api/v1/executions?per_page=10&page=${n}`);
      expect(byPage.data).toEqual(pages[n - 1].data);
      expect(byPage.meta.current_page).toBe(n);
    }
  });

  it('walks back with prev cursors to the first page', async () => {
    const { pages } = await walk('/api/v1/executions?per_page=10');
    let body = pages.at(-1);
    const seen: string[][] = [];
    while (body.links.prev) {
      body = await get(body.links.prev);
      seen.push(body.data.map((e: { id: string }) => e.id));
    }
    expect(body.meta.current_page).toBe(1);
    expect(body.meta.prev_cursor).toBeNull();
    const forward = pages.slice(0, -1).map((p) => p.data.map((e: { id: string }) => e.id));
    expect(seen.reverse()).toEqual(forward);
  });

  it('keeps the filters with the cursor', async () => {
    const from = '2025-01-01T00:00:03Z';
    const to = '2025-01-01T00:00:20Z';
    const query = `workflow_id=${flowA}&status=completed&from=${from}&to=${to}&per_page=3`;
    const { ids, pages } = await walk(`/api/v1/executions?${query}`);
    const where = api.db.admin`workflow_id = ${flowA} and status in ('success', 'partial')
      and started_at between ${from} and ${to}`;
    const want = await expected(acme.organizationId, where);
    expect(want.length).toBeGreaterThan(6);
    expect(ids).toEqual(want);
    expect(pages[0].links.next).toContain(`workflow_id=${flowA}`);
    expect(pages[0].links.next).toContain('status=completed');
    expect(pages[0].meta.total).toBe(want.length);
  });

  it('refuses a tampered, foreign or combined cursor with 422 on the field', async () => {
    const first = await get('/api/v1/executions?per_page=5');
    const good: string = first.meta.next_cursor;
    const decoded = JSON.parse(Buffer.from(good, 'base64url').toString());
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      'not a cursor',
      good.slice(0, -4),
      `${good}x`,
      forge({ ...decoded, v: 2 }),
      forge({ ...decoded, t: 'yesterday' }),
      forge({ ...decoded, i: "1' or '1'='1" }),
      forge({ ...decoded, p: 0 }),
      forge({ ...decoded, extra: true }),
      forge([1, 2]),
      'x'.repeat(401),
    ]) {
      const res = await api.request('GET', `/api/v1/executions?cursor=${encodeURIComponent(cursor)}`, {
        key: acme.key,
      });
      const body = await expectError(res, 422, 'validation_error');
      expect(Object.keys(body.error.fields), cursor).toEqual(['cursor']);
    }
    const both = await api.request('GET', `/api/v1/executions?page=2&cursor=${good}`, { key: acme.key });
    expect(Object.keys((await expectError(both, 422, 'validation_error')).error.fields)).toEqual(['page']);
  });

  it("never shows another organization's executions, whatever the cursor says", async () => {
    const acmePage = await get('/api/v1/executions?per_page=5');
    // Acme's cursor in Globex's hands only positions within Globex's own rows.
    const path = `/api/v1/executions?per_page=5&cursor=${acmePage.meta.next_cursor}`;
    const { ids } = await walk(path, globex.key, 2);
    expect(ids.length).toBeGreaterThan(0);
    const globexIds = await expected(globex.organizationId);
    expect(ids.every((id) => globexIds.includes(id))).toBe(true);
    const all = await walk('/api/v1/executions?per_page=7', globex.key);
    expect(all.ids).toEqual(globexIds);
    expect(all.pages[0].meta.total).toBe(23);
  });

  it('answers an estimate past 10,000 rows and still pages exactly', async () => {
    const big = await api.createOrg('Big');
    await seed(big.organizationId, 10_050, '0190dddd-0000-7000-8000-');
    await api.db.admin`analyze executions`;
    const first = await get('/api/v1/executions?per_page=100', big.key);
    expect(first.meta.total_exact).toBe(false);
    expect(first.meta.total).toBeGreaterThan(10_000);
    expect(first.meta.last_page).toBe(Math.ceil(first.meta.total / 100));
    const all = await expected(big.organizationId);
    const deep = await get(`/api/v1/executions?per_page=100&page=100`, big.key);
    expect(deep.data.map((e: { id: string }) => e.id)).toEqual(all.slice(9900, 10_000));
    const tail = await get(deep.links.next, big.key);
    expect(tail.data.map((e: { id: string }) => e.id)).toEqual(all.slice(10_000));
    expect(tail.meta.current_page).toBe(101);
    expect(tail.links.next).toBeNull();
  });
});
