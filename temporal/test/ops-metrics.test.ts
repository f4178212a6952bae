import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { connectDatabase } from '@weft/db';
import { createOrganization, startDeliverySweeper } from '@weft/domain';
import { metrics, startMetricsServer, watchDatabasePool } from '@weft/telemetry';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleActivities } from '../activities/schedules';
import { refreshTaskQueueBacklog } from '../task-queue-metrics';
import { createTemporalEngine } from '../temporal-engine';
import { createStack, type Stack } from './support';

// The metrics on-call misses (docs/alerts.md), each moved by its real code path and read back
// from a /metrics scrape (the worker's metrics server, on this process's registry).
let stack: Stack;
let db: TestDatabase;
let server: Awaited<ReturnType<typeof startMetricsServer>>;

beforeAll(async () => {
  [stack, db] = await Promise.all([createStack(), createTestDatabase()]);
  server = await startMetricsServer({ host: '127.0.0.1', port: 0 });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await db?.drop();
  await stack?.close();
});

async function sample(pattern: RegExp): Promise<number | undefined> {
  const text = await (await fetch(server.url)).text();
  const match = text.match(pattern);
  return match ? Number(match[1]) : undefined;
}

describe('operations metrics', () => {
  it('weft_task_queue_backlog counts workflow tasks no worker takes, from Temporal', async () => {
    const taskQueue = `backlog-${randomUUID()}`;
    const client = new Client({
      connection: stack.temporal.connection,
      namespace: stack.client.options.namespace,
    });
    const line = new RegExp(
      `^weft_task_queue_backlog\\{task_queue="${taskQueue}",task_type="workflow"\\} (\\S+)`,
      'm',
    );
    await refreshTaskQueueBacklog(client, taskQueue);
    expect(await sample(line)).toBe(0);
    for (let i = 0; i < 3; i++)
      await client.workflow.start('nobodyRunsThis', { taskQueue, workflowId: `${taskQueue}-${i}` });
    // The server's count is approximate and catches up within a few seconds.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      await refreshTaskQueueBacklog(client, taskQueue);
      if ((await sample(line)) === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(await sample(line)).toBe(3);
    const age = await sample(
      new RegExp(
        `^weft_task_queue_backlog_age_seconds\\{task_queue="${taskQueue}",task_type="workflow"\\} (\\S+)`,
        'm',
      ),
    );
    expect(age).toBeGreaterThan(0);
  });

  it('weft_db_pool_* report the busy share of a pool, seen from PostgreSQL', async () => {
    const handle = connectDatabase(db.appUrl, { max: 4 });
    try {
      // Two connections sleep in PostgreSQL while the pool is sampled.
      const sleeping = Promise.all([handle.sql`select pg_sleep(1.5)`, handle.sql`select pg_sleep(1.5)`]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const watch = watchDatabasePool(() => handle.poolUse());
      await new Promise((resolve) => setTimeout(resolve, 400));
      watch.stop();
      expect(await sample(/^weft_db_pool_busy_connections (\S+)/m)).toBe(2);
      expect(await sample(/^weft_db_pool_open_connections (\S+)/m)).toBe(3);
      expect(await sample(/^weft_db_pool_max_connections (\S+)/m)).toBe(4);
      await sleeping;
      expect(await handle.poolUse()).toMatchObject({ busy: 0, max: 4 });
    } finally {
      await handle.close();
    }
  });

  it('weft_webhook_outbox_unstarted shows deliveries the sweeper finds unstarted, sweep after sweep', async () => {
    const org = await createOrganization(db.app.db, { name: 'outbox' });
    const [webhook] = await db.admin`
      insert into webhooks (id, organization_id, url, events, secret_ciphertext)
      values (${randomUUID()}, ${org.id}, 'https://receiver.example/hook', '["execution.failed"]'::jsonb, 'x') returning id`;
    for (const key of ['a', 'b'])
      await db.admin`
        insert into webhook_deliveries (id, organization_id, webhook_id, event, dedup_key, body, created_at)
        values (${randomUUID()}, ${org.id}, ${webhook?.id}, 'execution.failed', ${key}, '{}', now() - interval '2 minutes')`;
    // A task queue no worker polls: the started delivery workflows never run, the rows stay unstarted.
    const engine = createTemporalEngine({ client: stack.client, taskQueue: `outbox-${randomUUID()}` });
    const counts: number[] = [];
    const sweeper = startDeliverySweeper({
      db: db.app.db,
      engine,
      intervalMs: 300,
      // As services/worker/src/run-worker.ts wires it.
      onSwept: (count) => {
        counts.push(count);
        metrics.outboxUnstarted.set(count);
      },
    });
    try {
      const deadline = Date.now() + 15_000;
      while (counts.length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      sweeper.stop();
    }
    expect(counts.slice(0, 2)).toEqual([2, 2]);
    expect(await sample(/^weft_webhook_outbox_unstarted (\S+)/m)).toBe(2);
  });

  it('weft_schedule_lag_seconds observes how late a schedule fire is recorded', async () => {
    // Recording a fire never starts anything: no engine needed.
    const activities = createScheduleActivities({ db: db.app.db, engine: undefined as never });
    const count = () => sample(/^weft_schedule_lag_seconds_count (\S+)/m);
    const sum = () => sample(/^weft_schedule_lag_seconds_sum (\S+)/m);
    const [before, beforeSum] = [(await count()) ?? 0, (await sum()) ?? 0];
    // A fire of a workflow that no longer exists records nothing, but was late all the same.
    const recorded = await activities.recordScheduledFire({
      organizationId: randomUUID(),
      workflowId: randomUUID(),
      scheduledAt: new Date(Date.now() - 90_000).toISOString(),
    });
    expect(recorded).toBeNull();
    expect(await count()).toBe(before + 1);
    expect(((await sum()) ?? 0) - beforeSum).toBeGreaterThanOrEqual(90);
  });
});
