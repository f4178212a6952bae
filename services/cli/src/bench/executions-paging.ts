import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from '@weft/config';
import { connectDatabase, enableAppRoleLogin, runMigrations, startEmbeddedPostgres } from '@weft/db';
import {
  createApiKey,
  createOrganization,
  decodeExecutionCursor,
  executionListCondition,
  executionPageQueries,
} from '@weft/domain';
import postgres from 'postgres';
import { runLogDirectory, spawnService, stopChild, waitForHttp } from '../children';
import { dataPath, loadCliEnv } from '../project';
import { serviceBundles } from '../service-bundle';

const PER_PAGE = 100;
const PAGES = [1, 50, 500, 5000];
const SAMPLES = 25;
const SEED_CHUNK = 250_000;

interface Measure {
  mode: string;
  page: number;
  p50: number;
  p95: number;
  /** The scans of the statement's plan, e.g. "Index Only Scan executions_org_started". */
  plan: string;
  /** Shared buffers (8 KiB pages) the statement touched: what grows with depth when paging does. */
  buffers: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

async function timeIt(samples: number, run: () => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await run(); // warm-up: JIT, connection pool, buffer cache
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The scan nodes of a plan, outermost first (what "which plan" means when paging). */
function scans(node: PlanNode, into: string[] = []): string[] {
  if (node['Node Type'].includes('Scan') || node['Node Type'] === 'Sort')
    into.push(node['Index Name'] ? `${node['Node Type']} ${node['Index Name']}` : node['Node Type']);
  for (const child of node.Plans ?? []) scans(child, into);
  return into;
}

/**
 * `weft bench executions`: the executions list at depth. Starts a fresh embedded PostgreSQL (its own
 * temporary data directory and port), seeds N executions into one organization with
 * `generate_series`, starts the API, and times page 1, 50, 500 and 5000 (100 rows a page) by offset
 * (`?page=`) and by keyset (`?cursor=`) over HTTP, with each statement's plan and buffer count.
 * `before` rows run the statement the list used before keyset paging (`select *`, OFFSET, an exact
 * COUNT(*), and an index whose NULLS LAST order could not serve `order by … desc`, so a sort), in SQL.
 */
export async function benchExecutionsPagingCommand(options: { rows: number; json: boolean }) {
  // APP_KEY (from .env) is what the API process below needs from the environment.
  const env = loadCliEnv();
  const say = (line: string) => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weft-bench-paging-'));
  const pgPort = await freeLoopbackPort();
  const adminPassword = 'bench-admin';
  const appPassword = 'bench-app';
  const pg = await startEmbeddedPostgres({ dataDir, port: pgPort, adminPassword, database: 'weft' });
  const adminUrl = pg.urlFor('weft');
  const appUrl = pg.urlFor('weft', 'weft_app', appPassword);
  await runMigrations(adminUrl);
  await enableAppRoleLogin(adminUrl, appPassword);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const app = postgres(appUrl, { max: 1, onnotice: () => {} });
  const handle = connectDatabase(appUrl, { max: 2 });
  let server: ReturnType<typeof spawnService> | undefined;
  try {
    const org = await createOrganization(handle.db, { name: 'paging bench' });
    const other = await createOrganization(handle.db, { name: 'another tenant' });
    const key = await createApiKey({
      ctx: { db: handle.db, organizationId: org.id, actor: {} },
      input: { name: 'bench', permissions: ['*'] },
    });

    // A month of executions, ~2.6 s apart with every 8th sharing its neighbour's start (ties), 20
    // workflows, the usual status mix; another organization holds a tenth as many.
    const seedStart = performance.now();
    const seed = async (organizationId: string, rows: number) => {
      for (let from = 1; from <= rows; from += SEED_CHUNK) {
        const to = Math.min(rows, from + SEED_CHUNK - 1);
        await admin`
          insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph,
                                  status, trigger, trigger_payload, started_at, completed_at, duration_ms)
          select gen_random_uuid(), ${organizationId},
                 ('00000000-0000-4000-8000-' || lpad((i % 20)::text, 12, '0'))::uuid,
                 'flow ' || (i % 20), 1, '{"nodes": [], "edges": []}'::jsonb,
                 (array['success','success','success','success','partial','failed','cancelled','waiting'])[1 + i % 8],
                 'event', jsonb_build_object('i', i),
                 now() - ((i - i % 8 / 7) * interval '2.6 seconds'),
                 now() - ((i - i % 8 / 7) * interval '2.6 seconds') + interval '40 ms', 40
            from generate_series(${from}::int, ${to}::int) i`;
        say(`  seeded ${to} of ${rows}`);
      }
    };
    await seed(org.id, options.rows);
    await seed(other.id, Math.ceil(options.rows / 10));
    // Settle hint bits and the visibility map as autovacuum would on a live table (index-only scans
    // depend on it), and give the planner statistics.
    await admin`vacuum analyze executions`;
    const seedSeconds = (performance.now() - seedStart) / 1000;
    say(`seeded ${options.rows} executions in ${seedSeconds.toFixed(1)} s`);

    const port = await freeLoopbackPort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = spawnService(
      (await serviceBundles()).api,
      {
        DATABASE_URL: appUrl,
        PORT: String(port),
        APP_URL: baseUrl,
        RATE_LIMIT_PER_KEY: '1000000000',
        RATE_LIMIT_PER_ORG: '1000000000',
        TEMPORAL_ADDRESS: '',
        RUN_WORKER: 'false',
      },
      { logFile: path.join(runLogDirectory(dataPath(env), 'bench-executions'), 'api.log') },
    );
    const alive = server;
    await waitForHttp(`${baseUrl}/healthz`, 60_000, () => alive.exitCode === null);
    const fetchPage = async (query: string) => {
      const res = await fetch(`${baseUrl}/api/v1/executions?per_page=${PER_PAGE}&${query}`, {
        headers: { 'x-api-key': key.key },
      });
      if (res.status !== 200) throw new Error(`GET ${query}: ${res.status} ${await res.text()}`);
      return (await res.json()) as {
        meta: { next_cursor: string | null; total: number; total_exact: boolean };
      };
    };

    /** EXPLAIN ANALYZE as the runtime role inside the tenancy scope, as the API runs it. */
    const explain = async (text: string, params: unknown[]) =>
      app.begin(async (tx) => {
        await tx`select set_config('app.org_id', ${org.id}, true)`;
        const rows = await tx.unsafe(`explain (analyze, buffers, format json) ${text}`, params as never[]);
        const [explained] = (rows[0]?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[];
        if (!explained) throw new Error('EXPLAIN returned no plan');
        const plan = explained.Plan;
        return {
          plan: [...new Set(scans(plan))].join(' + '),
          buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
        };
      });
    const results: Measure[] = [];
    const cases = [
      ...PAGES.filter((p) => (p - 1) * PER_PAGE < options.rows).map((page) => ({ page, status: undefined })),
      // A filtered list: the status index serves it the same way.
      ...(499 * PER_PAGE < options.rows / 8 ? [{ page: 500, status: 'failed' as const }] : []),
    ];
    for (const { page, status } of cases) {
      say(`measuring page ${page}${status ? ` of status=${status}` : ''}`);
      const filter = status ? `status=${status}&` : '';
      const label = (mode: string) => (status ? `${mode}, ${status}` : mode);
      const condition = executionListCondition(org.id, { perPage: PER_PAGE, status });
      const queries = executionPageQueries(handle.db, condition, PER_PAGE);
      const offsetSql = queries.offset(page).toSQL();
      results.push({
        mode: label('offset'),
        page,
        ...(await timeIt(SAMPLES, () => fetchPage(`${filter}page=${page}`))),
        ...(await explain(offsetSql.sql, offsetSql.params)),
      });
      // The cursor for page N is what page N-1 answered as next_cursor.
      const cursor = page === 1 ? null : (await fetchPage(`${filter}page=${page - 1}`)).meta.next_cursor;
      const keysetSql = cursor ? queries.keyset(decodeExecutionCursor(cursor)).toSQL() : offsetSql;
      results.push({
        mode: label('keyset'),
        page,
        ...(await timeIt(SAMPLES, () => fetchPage(cursor ? `${filter}cursor=${cursor}` : filter))),
        ...(await explain(keysetSql.sql, keysetSql.params)),
      });
      // Before: the same page as the list read it until now, straight in SQL (no HTTP, no JSON).
      const before = `select * from executions where organization_id = $1 ${status ? `and status = '${status}'` : ''}
        order by started_at desc nulls last, id desc nulls last limit ${PER_PAGE} offset ${(page - 1) * PER_PAGE}`;
      results.push({
        mode: label('before (SQL)'),
        page,
        ...(await timeIt(Math.min(SAMPLES, 5), () =>
          app.begin(async (tx) => {
            await tx`select set_config('app.org_id', ${org.id}, true)`;
            await tx.unsafe(before, [org.id]);
          }),
        )),
        ...(await explain(before, [org.id])),
      });
    }
    const countSql = {
      exact: 'select count(*) from executions where organization_id = $1',
      capped: 'select count(*) from (select 1 from executions where organization_id = $1 limit 10001) c',
    };
    const counts: Measure[] = [];
    for (const [mode, text] of Object.entries(countSql)) {
      counts.push({
        mode: mode === 'exact' ? 'count before (exact)' : 'count now (capped)',
        page: 0,
        ...(await timeIt(5, () =>
          app.begin(async (tx) => {
            await tx`select set_config('app.org_id', ${org.id}, true)`;
            await tx.unsafe(text, [org.id]);
          }),
        )),
        ...(await explain(text, [org.id])),
      });
    }
    const first = await fetchPage('page=1');
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ rows: options.rows, per_page: PER_PAGE, seed_seconds: seedSeconds, total: first.meta, pages: results, counts })}\n`,
      );
      return;
    }
    const fmt = (n: number) => n.toFixed(1).padStart(8);
    say(`\n${options.rows} executions in one organization, ${PER_PAGE} a page; ${SAMPLES} requests each`);
    say(`answered total: ${first.meta.total} (exact: ${first.meta.total_exact})\n`);
    say(
      `${'mode'.padEnd(20)} ${'page'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'buffers'.padStart(8)}  plan`,
    );
    for (const r of [...results, ...counts])
      say(
        `${r.mode.padEnd(22)} ${(r.page || '-').toString().padStart(5)} ${fmt(r.p50)} ${fmt(r.p95)} ${String(r.buffers).padStart(8)}  ${r.plan}`,
      );
    say('\nHTTP rows include authentication, the tenancy transaction, the capped count and JSON.');
  } finally {
    if (server) await stopChild(server);
    await handle.close();
    await app.end();
    await admin.end();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
