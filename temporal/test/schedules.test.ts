import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { createApp } from '@weft/api';
import { nextCronFireTimes } from '@weft/graph';
import {
  CATCHUP_WINDOW,
  PAUSED_NOTE,
  reconcileTriggerSchedules,
  triggerScheduleId,
} from '@weft/temporal/schedules';
import { createEngineHarness, type EngineHarness, jsonRequester } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: EngineHarness;
let org: { organizationId: string; key: string };

const echo = {
  id: 'echo',
  type: 'action.transform',
  config: { assignments: [{ key: 'scheduled_at', value: '{{trigger.scheduled_at}}' }] },
};

async function createWorkflow(body: Record<string, unknown>) {
  const res = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: { name: 'scheduled', trigger_type: 'schedule', status: 'active', nodes: [echo], ...body },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json;
}

async function updateWorkflow(workflow: any, changes: Record<string, unknown>) {
  const { id, version: _v, created_at: _c, updated_at: _u, ...rest } = workflow;
  const res = await h.request('PUT', `/api/v1/workflows/${id}`, {
    key: org.key,
    body: { ...rest, ...changes },
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

const describeSchedule = (workflowId: string) =>
  h.client.schedule.getHandle(triggerScheduleId('schedule', workflowId)).describe();

async function eventually<T>(
  probe: () => Promise<T>,
  ok: (value: T) => boolean,
  // As long as a test's own timeout: schedules fire through Temporal, slow on a busy machine.
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await probe();
  }
  return last;
}

async function executionsOf(workflowId: string) {
  const res = await h.request('GET', `/api/v1/executions?workflow_id=${workflowId}`, { key: org.key });
  return ((await res.json()) as any).data as any[];
}

beforeAll(async () => {
  h = await createEngineHarness({ ownTemporalServer: true });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('cron: Weft and Temporal agree on fire times', () => {
  // Fixed instants in the future (startAt), so the comparison does not depend on today's date.
  const cases: [string, string, string, string][] = [
    ['daily at 08:00', '0 8 * * *', 'UTC', '2030-01-14T10:07:00Z'],
    ['every Monday at 09:00', '0 9 * * 1', 'UTC', '2030-01-14T10:07:00Z'],
    ['every 15 minutes', '*/15 * * * *', 'UTC', '2030-01-14T10:07:00Z'],
    ['first of the month at midnight', '0 0 1 * *', 'UTC', '2030-01-14T10:07:00Z'],
    ['every 2 hours', '0 */2 * * *', 'UTC', '2030-01-14T10:07:00Z'],
    // Spring forward in New York on 2030-03-10 (02:00 EST → 03:00 EDT).
    ['daily at 08:00 across spring-forward', '0 8 * * *', 'America/New_York', '2030-03-08T00:00:00Z'],
    ['every 2 hours across spring-forward', '0 */2 * * *', 'America/New_York', '2030-03-09T20:00:00Z'],
    // Fall back in Berlin on 2030-10-27 (03:00 CEST → 02:00 CET).
    ['Mondays 09:00 across fall-back', '0 9 * * 1', 'Europe/Berlin', '2030-10-20T00:00:00Z'],
  ];

  it.each(cases)('%s (%s, %s)', async (_name, cron, timezone, from) => {
    const scheduleId = `cron-check-${randomUUID()}`;
    const handle = await h.client.schedule.create({
      scheduleId,
      spec: { cronExpressions: [cron], timezone, startAt: new Date(from) },
      action: { type: 'startWorkflow', workflowType: 'noop', taskQueue: h.taskQueue, args: [] },
    });
    try {
      const temporal = (await handle.describe()).info.nextActionTimes.map((d) => d.toISOString());
      expect(temporal.length).toBeGreaterThanOrEqual(5);
      const ours = nextCronFireTimes(cron, timezone, new Date(new Date(from).getTime() - 1), temporal.length);
      expect(ours.map((d) => d.toISOString())).toEqual(temporal);
    } finally {
      await handle.delete();
    }
  });

  /**
   * Inside the hour a DST change skips or repeats, Temporal (which is what fires) and croner (which
   * predicts) differ; everywhere else they agree. What Temporal does there is pinned here and
   * documented in docs/decisions.md, so a server upgrade that changes it shows up.
   */
  const transitions: [string, string, string, string, [string, string], string[]][] = [
    // 02:30 does not exist in New York on 2030-03-10: Temporal skips that day (croner runs at 03:00).
    [
      '02:30 daily, spring-forward',
      '30 2 * * *',
      'America/New_York',
      '2030-03-08T00:00:00Z',
      ['2030-03-10T06:00:00Z', '2030-03-10T08:00:00Z'],
      [],
    ],
    // 02:30 happens twice in Berlin on 2030-10-27: Temporal fires once, at the second (CET) one.
    [
      '02:30 daily, fall-back',
      '30 2 * * *',
      'Europe/Berlin',
      '2030-10-25T00:00:00Z',
      ['2030-10-27T00:00:00Z', '2030-10-27T02:00:00Z'],
      ['2030-10-27T01:30:00.000Z'],
    ],
    // Every 15 minutes through the repeated hour: Temporal leaves out part of it.
    [
      'every 15 minutes, fall-back',
      '*/15 * * * *',
      'Europe/Berlin',
      '2030-10-26T23:50:00Z',
      ['2030-10-27T00:00:00Z', '2030-10-27T02:30:00Z'],
      ['2030-10-27T00:00:00.000Z', '2030-10-27T01:15:00.000Z'],
    ],
  ];

  it.each(transitions)(
    '%s: differs only inside the shifted hour',
    async (_n, cron, timezone, from, window, inside) => {
      const handle = await h.client.schedule.create({
        scheduleId: `cron-check-${randomUUID()}`,
        spec: { cronExpressions: [cron], timezone, startAt: new Date(from) },
        action: { type: 'startWorkflow', workflowType: 'noop', taskQueue: h.taskQueue, args: [] },
      });
      try {
        const [start, end] = window.map((t) => new Date(t).getTime()) as [number, number];
        const temporal = (await handle.describe()).info.nextActionTimes;
        const last = temporal.at(-1)?.getTime() ?? 0;
        const ours = nextCronFireTimes(cron, timezone, new Date(new Date(from).getTime() - 1), 100).filter(
          (d) => d.getTime() <= last,
        );
        const outside = (list: Date[]) =>
          list.filter((d) => d.getTime() < start || d.getTime() >= end).map((d) => d.toISOString());
        const within = (list: Date[]) =>
          list.filter((d) => d.getTime() >= start && d.getTime() < end).map((d) => d.toISOString());
        expect(outside(ours)).toEqual(outside(temporal));
        expect(within(temporal)).toEqual(inside);
      } finally {
        await handle.delete();
      }
    },
  );
});

describe('a scheduled workflow keeps its Temporal Schedule in step', () => {
  it('creates, updates, pauses, resumes and deletes the schedule with the workflow', async () => {
    let workflow = await createWorkflow({ trigger_config: { cron: '0 8 * * *', timezone: 'Europe/Berlin' } });
    let described = await describeSchedule(workflow.id);
    expect(described.state.paused).toBe(false);
    expect(described.spec.timezone).toBe('Europe/Berlin');
    expect(described.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    expect(described.policies.catchupWindow).toBe(60_000);
    expect(CATCHUP_WINDOW).toBe('1 minute');
    expect(described.action).toMatchObject({ workflowType: 'scheduledFire' });
    const expectNext = (cron: string, zone: string, times: Date[]) =>
      expect(times.map((d) => d.toISOString())).toEqual(
        nextCronFireTimes(cron, zone, new Date(), times.length).map((d) => d.toISOString()),
      );
    expectNext('0 8 * * *', 'Europe/Berlin', described.info.nextActionTimes);

    workflow = await updateWorkflow(workflow, {
      trigger_config: { cron: '30 6 * * 1', timezone: 'America/New_York' },
    });
    described = await describeSchedule(workflow.id);
    expect(described.spec.timezone).toBe('America/New_York');
    expectNext('30 6 * * 1', 'America/New_York', described.info.nextActionTimes);

    workflow = await updateWorkflow(workflow, { status: 'inactive' });
    described = await describeSchedule(workflow.id);
    expect(described.state.paused).toBe(true);
    expect(described.state.note).toBe(PAUSED_NOTE);

    workflow = await updateWorkflow(workflow, { status: 'active' });
    expect((await describeSchedule(workflow.id)).state.paused).toBe(false);

    const res = await h.request('DELETE', `/api/v1/workflows/${workflow.id}`, { key: org.key });
    expect(res.status).toBe(204);
    await expect(describeSchedule(workflow.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('creates no schedule for a draft, and deletes it when the trigger type changes', async () => {
    const draft = await createWorkflow({ status: 'draft', trigger_config: { cron: '0 8 * * *' } });
    await expect(describeSchedule(draft.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);

    const active = await createWorkflow({ trigger_config: { cron: '0 8 * * *' } });
    expect((await describeSchedule(active.id)).state.paused).toBe(false);
    await updateWorkflow(active, { trigger_type: 'manual', trigger_config: {} });
    await expect(describeSchedule(active.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('answers 422 on trigger_config.cron and trigger_config.timezone', async () => {
    for (const [config, field] of [
      [{ cron: '61 8 * * *' }, 'trigger_config.cron'],
      [{ cron: '0 8 * *' }, 'trigger_config.cron'],
      [{ cron: '0 8 L * *' }, 'trigger_config.cron'],
      [{ cron: '0 8 * * *', timezone: 'Mars/Olympus' }, 'trigger_config.timezone'],
    ] as const) {
      const res = await h.request('POST', '/api/v1/workflows', {
        key: org.key,
        body: { name: 'bad', trigger_type: 'schedule', trigger_config: config, nodes: [echo] },
      });
      const json = (await res.json()) as any;
      expect(res.status).toBe(422);
      expect(json.error.code).toBe('validation_error');
      expect(Object.keys(json.error.fields)).toContain(field);
    }
  });
});

describe('a schedule fire', () => {
  it('runs the workflow with trigger schedule and payload.scheduled_at, and fires scheduled.<id>', async () => {
    const workflow = await createWorkflow({ trigger_config: { cron: '0 0 1 1 *' } });
    const listenerRes = await h.request('POST', '/api/v1/workflows', {
      key: org.key,
      body: {
        name: 'listens to scheduled.*',
        trigger_type: 'event',
        trigger_config: { event: 'scheduled.*' },
        status: 'active',
        nodes: [echo],
      },
    });
    const listener = (await listenerRes.json()) as any;
    const before = Date.now();
    await h.client.schedule.getHandle(triggerScheduleId('schedule', workflow.id)).trigger();

    const [run] = await eventually(
      () => executionsOf(workflow.id),
      (list) => list.length === 1 && list[0].status === 'success',
    );
    expect(run).toMatchObject({ trigger: 'schedule', event: `scheduled.${workflow.id}` });
    const execution = await h.waitForExecution(org.key, run.id);
    const scheduledAt = execution.steps[0].output.scheduled_at as string;
    expect(new Date(scheduledAt).toISOString()).toBe(scheduledAt);
    // The time of this trigger (not a cron time hours away): between the call and now, however long
    // the fire took.
    expect(new Date(scheduledAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(scheduledAt).getTime()).toBeLessThanOrEqual(Date.now());

    const [heard] = await eventually(
      () => executionsOf(listener.id),
      (list) => list.length === 1 && list[0].status === 'success',
    );
    expect(heard).toMatchObject({ trigger: 'schedule', event: `scheduled.${workflow.id}` });
    expect((await h.waitForExecution(org.key, heard.id)).steps[0].output.scheduled_at).toBe(scheduledAt);
  });

  it('records nothing when the workflow was deactivated behind the schedule’s back', async () => {
    const workflow = await createWorkflow({ trigger_config: { cron: '0 0 1 1 *' } });
    await h.db.admin`update workflows set status = 'inactive' where id = ${workflow.id}`;
    const handle = h.client.schedule.getHandle(triggerScheduleId('schedule', workflow.id));
    await handle.trigger();
    const described = await eventually(
      () => handle.describe(),
      (d) => d.info.recentActions.length === 1,
    );
    const fire = h.client.workflow.getHandle(
      described.info.recentActions[0]?.action.workflow.workflowId ?? '',
    );
    expect(await fire.result()).toEqual({ executionId: null, status: null });
    expect(await executionsOf(workflow.id)).toEqual([]);
  });
});

describe('the reconciler', () => {
  it('creates missing schedules, fixes stale and wrongly paused ones, deletes orphans', async () => {
    // Temporal "down" at save time: an API without an engine still answers 201 (the sync is logged).
    const offline = jsonRequester(
      createApp({
        db: h.db.app.db,
        env: {
          APP_URL: 'http://localhost:3000',
          MAX_BODY_BYTES: 1024 * 1024,
          RATE_LIMIT_PER_KEY: 1_000_000,
          RATE_LIMIT_PER_ORG: 1_000_000,
          TRUST_PROXY_HOPS: 0,
        },
        temporalReady: async () => false,
        logError: () => {},
      }),
    );
    const res = await offline('POST', '/api/v1/workflows', {
      key: org.key,
      body: {
        name: 'saved offline',
        trigger_type: 'schedule',
        trigger_config: { cron: '0 7 * * *' },
        status: 'active',
        nodes: [echo],
      },
    });
    expect(res.status).toBe(201);
    const missing = ((await res.json()) as any).id as string;
    await expect(describeSchedule(missing)).rejects.toBeInstanceOf(ScheduleNotFoundError);

    // Stale: the cron changed in PostgreSQL without a sync.
    const stale = await createWorkflow({ trigger_config: { cron: '0 8 * * *' } });
    await h.db
      .admin`update workflows set trigger_config = '{"cron": "0 9 * * *", "timezone": "UTC"}' where id = ${stale.id}`;
    // Paused although active.
    const paused = await createWorkflow({ trigger_config: { cron: '0 8 * * *' } });
    await h.client.schedule.getHandle(triggerScheduleId('schedule', paused.id)).pause('by hand');
    // Orphans: a schedule whose workflow never existed, and one of a workflow deleted behind its back.
    const orphanId = triggerScheduleId('schedule', randomUUID());
    await h.client.schedule.create({
      scheduleId: orphanId,
      spec: { cronExpressions: ['0 0 1 1 *'] },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: h.taskQueue, args: [] },
    });
    const deleted = await createWorkflow({ trigger_config: { cron: '0 8 * * *' } });
    await h.db.admin`delete from workflows where id = ${deleted.id}`;

    // Schedule listing is eventually consistent: wait until Temporal lists what the test made.
    await eventually(
      async () => {
        const ids = new Set<string>();
        for await (const s of h.client.schedule.list()) ids.add(s.scheduleId);
        return ids;
      },
      (ids) => ids.has(orphanId) && ids.has(triggerScheduleId('schedule', deleted.id)),
    );
    const report = await reconcileTriggerSchedules({
      client: h.client,
      taskQueue: h.taskQueue,
      db: h.db.app.db,
    });
    expect(report.failed).toEqual([]);
    expect(report.created).toContain(triggerScheduleId('schedule', missing));
    expect(report.updated).toEqual(
      expect.arrayContaining([
        triggerScheduleId('schedule', stale.id),
        triggerScheduleId('schedule', paused.id),
      ]),
    );
    expect(report.deleted).toEqual(
      expect.arrayContaining([orphanId, triggerScheduleId('schedule', deleted.id)]),
    );

    expect((await describeSchedule(missing)).state.paused).toBe(false);
    const fixed = await describeSchedule(stale.id);
    expect(fixed.info.nextActionTimes[0]?.toISOString()).toBe(
      nextCronFireTimes('0 9 * * *', 'UTC', new Date(), 1)[0]?.toISOString(),
    );
    expect((await describeSchedule(paused.id)).state.paused).toBe(false);
    await expect(h.client.schedule.getHandle(orphanId).describe()).rejects.toBeInstanceOf(
      ScheduleNotFoundError,
    );
    await expect(describeSchedule(deleted.id)).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });
});
