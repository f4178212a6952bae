import { connectDatabase } from '@weft/db';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pruneExpiredExecutions, startRetentionSweeper } from '../src/executions/retention';
import { createOrganization } from '../src/organizations/create';

/** EXECUTION_RETENTION_DAYS on a real PostgreSQL, pruning as the runtime role (as the worker does). */
let t: TestDatabase;
let acme: string;
let globex: string;

beforeAll(async () => {
  t = await createTestDatabase();
  acme = (await createOrganization(t.app.db, { name: 'Acme' })).id;
  globex = (await createOrganization(t.app.db, { name: 'Globex' })).id;
}, 60_000);
afterAll(() => t?.drop());
beforeEach(async () => {
  await t.admin`delete from executions`;
  await t.admin`delete from message_outbox`;
});

interface Seed {
  status: 'pending' | 'running' | 'waiting' | 'success' | 'partial' | 'failed' | 'cancelled';
  /** Days since it finished; null = not finished. */
  finishedDaysAgo: number | null;
  startedDaysAgo?: number;
  errorCode?: string;
}

/** One execution with a step and a stored output (inserted as the owner: set-up only). */
async function seed(organizationId: string, s: Seed): Promise<string> {
  const started = s.startedDaysAgo ?? (s.finishedDaysAgo ?? 0) + 0.01;
  const error = s.errorCode ? { message: 'boom', code: s.errorCode } : null;
  const [row] = await t.admin<{ id: string }[]>`
    insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph,
                            status, trigger, trigger_payload, error, started_at, completed_at)
    values (gen_random_uuid(), ${organizationId}, gen_random_uuid(), 'wf', 1, '{}'::jsonb, ${s.status},
            'api', '{}'::jsonb, ${error === null ? null : t.admin.json(error)},
            now() - ${started} * interval '1 day',
            case when ${s.finishedDaysAgo}::float8 is null then null
                 else now() - ${s.finishedDaysAgo}::float8 * interval '1 day' end)
    returning id`;
  const id = row?.id as string;
  await t.admin`
    insert into execution_steps (id, organization_id, execution_id, node_id, node_type, position, status)
    values (gen_random_uuid(), ${organizationId}, ${id}, 'a', 'action.transform', 0, 'completed')`;
  await t.admin`
    insert into stored_outputs (id, organization_id, execution_id, value, size_bytes)
    values (gen_random_uuid(), ${organizationId}, ${id}, '{"big": true}'::jsonb, 13)`;
  return id;
}

async function remaining(table: 'executions' | 'execution_steps' | 'stored_outputs', ids: string[]) {
  const column = table === 'executions' ? 'id' : 'execution_id';
  const rows = await t.admin<{ id: string }[]>`
    select distinct ${t.admin(column)} as id from ${t.admin(table)} where ${t.admin(column)} = any(${ids}::uuid[])`;
  return rows.map((r) => r.id).sort();
}

describe('pruneExpiredExecutions', () => {
  it('deletes finished executions past retention with their steps and stored outputs, in every organization', async () => {
    const doomed: string[] = [];
    const kept: string[] = [];
    for (const org of [acme, globex]) {
      doomed.push(
        await seed(org, { status: 'success', finishedDaysAgo: 40 }),
        await seed(org, { status: 'partial', finishedDaysAgo: 31 }),
        await seed(org, { status: 'cancelled', finishedDaysAgo: 60 }),
        await seed(org, { status: 'failed', finishedDaysAgo: 35, errorCode: 'retry_expired' }),
        // A failed run whose retry window ended long ago, even without its final report.
        await seed(org, { status: 'failed', finishedDaysAgo: 45, errorCode: 'http_error' }),
      );
      kept.push(
        await seed(org, { status: 'success', finishedDaysAgo: 29 }),
        await seed(org, { status: 'failed', finishedDaysAgo: 2, errorCode: 'http_error' }),
        // Old but unfinished: never pruned, however old.
        await seed(org, { status: 'running', finishedDaysAgo: null, startedDaysAgo: 90 }),
        await seed(org, { status: 'waiting', finishedDaysAgo: null, startedDaysAgo: 90 }),
        await seed(org, { status: 'pending', finishedDaysAgo: null, startedDaysAgo: 90 }),
        // Started long ago, finished recently: age counts from the end.
        await seed(org, { status: 'success', finishedDaysAgo: 1, startedDaysAgo: 50 }),
      );
    }
    const report = await pruneExpiredExecutions(t.app.db, { retentionDays: 30 });
    expect(report).toEqual({ deleted: doomed.length, batches: 1, skipped: false });
    for (const table of ['executions', 'execution_steps', 'stored_outputs'] as const) {
      expect(await remaining(table, doomed), table).toEqual([]);
      expect(await remaining(table, kept), table).toEqual([...kept].sort());
    }
  });

  it('keeps a failed execution while its run still waits for a retry, even past a short retention', async () => {
    const parked = await seed(acme, { status: 'failed', finishedDaysAgo: 3, errorCode: 'http_error' });
    const expired = await seed(acme, { status: 'failed', finishedDaysAgo: 3, errorCode: 'retry_expired' });
    const done = await seed(acme, { status: 'success', finishedDaysAgo: 3 });
    const report = await pruneExpiredExecutions(t.app.db, { retentionDays: 1 });
    expect(report.deleted).toBe(2);
    expect(await remaining('executions', [parked, expired, done])).toEqual([parked]);
  });

  it('works through a backlog in batches that end exactly on and off the batch size', async () => {
    const ids = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        seed(i % 2 ? acme : globex, { status: 'success', finishedDaysAgo: 40 + i }),
      ),
    );
    const recent = await seed(acme, { status: 'success', finishedDaysAgo: 0.5 });
    // 7 rows in batches of 3: 3 + 3 + 1.
    expect(await pruneExpiredExecutions(t.app.db, { retentionDays: 30, batchSize: 3 })).toEqual({
      deleted: 7,
      batches: 3,
      skipped: false,
    });
    expect(await remaining('executions', [...ids, recent])).toEqual([recent]);
    // A backlog that is a multiple of the batch size needs one more, empty, batch to know it is done.
    await Promise.all(
      Array.from({ length: 4 }, () =>
        seed(globex, { status: 'failed', finishedDaysAgo: 50, errorCode: 'retry_expired' }),
      ),
    );
    expect(await pruneExpiredExecutions(t.app.db, { retentionDays: 30, batchSize: 2 })).toEqual({
      deleted: 4,
      batches: 3,
      skipped: false,
    });
    expect(await pruneExpiredExecutions(t.app.db, { retentionDays: 30, batchSize: 2 })).toEqual({
      deleted: 0,
      batches: 1,
      skipped: false,
    });
  });

  it('keeps everything with retention 0', async () => {
    const id = await seed(acme, { status: 'success', finishedDaysAgo: 4000 });
    expect(await pruneExpiredExecutions(t.app.db, { retentionDays: 0 })).toEqual({
      deleted: 0,
      batches: 0,
      skipped: false,
    });
    expect(await remaining('executions', [id])).toEqual([id]);
  });

  it('lets one worker prune at a time: the others skip, and nothing is deleted twice', async () => {
    const ids = await Promise.all(
      Array.from({ length: 6 }, () => seed(acme, { status: 'success', finishedDaysAgo: 40 })),
    );
    // Another worker in the middle of a batch holds the lock: this one skips the tick.
    const other = await t.admin.reserve();
    try {
      await other`begin`;
      await other`select pg_advisory_xact_lock(hashtext('weft_prune_executions'))`;
      expect(await pruneExpiredExecutions(t.app.db, { retentionDays: 30 })).toEqual({
        deleted: 0,
        batches: 0,
        skipped: true,
      });
      await other`commit`;
    } finally {
      other.release();
    }
    const runs = await Promise.all(
      [1, 2, 3].map(() => pruneExpiredExecutions(t.app.db, { retentionDays: 30, batchSize: 1 })),
    );
    expect(runs.reduce((sum, r) => sum + r.deleted, 0)).toBe(6);
    expect(await remaining('executions', ids)).toEqual([]);
  });

  it('deletes the message outbox rows of pruned executions once past retention and the retry window', async () => {
    const gone = await seed(acme, { status: 'success', finishedDaysAgo: 40 });
    const running = await seed(acme, { status: 'running', finishedDaysAgo: null, startedDaysAgo: 40 });
    const addSend = async (stepKey: string, daysAgo: number) => {
      await t.admin`
        insert into message_outbox (id, organization_id, step_key, channel, status, created_at)
        values (gen_random_uuid(), ${acme}, ${stepKey}, 'email', 'sent', now() - ${daysAgo} * interval '1 day')`;
    };
    await addSend(`${gone}:mail`, 40);
    await addSend(`${running}:mail`, 40);
    await addSend(`${running}:mail:2`, 1);
    await pruneExpiredExecutions(t.app.db, { retentionDays: 30 });
    const left = await t.admin<{ step_key: string }[]>`select step_key from message_outbox order by step_key`;
    expect(left.map((r) => r.step_key)).toEqual([`${running}:mail`, `${running}:mail:2`]);
  });
});

describe('stopping', () => {
  it('a stopped prune starts no further batch and reports what it deleted', async () => {
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => seed(acme, { status: 'success', finishedDaysAgo: 40 + i })),
    );
    const stop = new AbortController();
    // Stopped during the pause after the first batch of 2.
    setTimeout(() => stop.abort(), 150);
    const report = await pruneExpiredExecutions(t.app.db, {
      retentionDays: 30,
      batchSize: 2,
      pauseMs: 400,
      signal: stop.signal,
    });
    expect(report).toEqual({ deleted: 2, batches: 1, skipped: false });
    expect((await t.admin`select id from executions`).length).toBe(4);
  });

  it("the sweeper's stop() resolves once its run has ended: closing the database then logs no failure", async () => {
    await Promise.all(
      Array.from({ length: 3 }, (_, i) => seed(globex, { status: 'success', finishedDaysAgo: 40 + i })),
    );
    // A process's own pool, as a worker has: closed right after stop(), as a worker does on SIGTERM.
    const own = connectDatabase(t.appUrl, { max: 2 });
    const lines: string[] = [];
    const sweeper = startRetentionSweeper({
      db: own.db,
      retentionDays: 30,
      auditLogRetentionDays: 0,
      log: (message, error) => lines.push(error ? `${message}: ${String(error)}` : message),
    });
    await sweeper.stop();
    await own.close();
    // Give a run that stop() did not wait for the time to fail on the closed pool.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((line) => line.includes('failed'))).toEqual([]);
    // stop() came while the first batch (of up to 200) was under way: it waited for that batch,
    // which deleted all three, and the later tables' batches never started.
    expect((await t.admin`select id from executions`).length).toBe(0);
  });
});
