import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type ScheduleSpec,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { Database } from '@weft/db';
import { listTimedWorkflows, type TimedTriggerType, type TimedWorkflow } from '@weft/domain';
import { TriggerConfigByType } from '@weft/graph';
import { SEARCH_ATTRIBUTES } from './shared';

/**
 * Temporal Schedules of schedule- and polling-triggered workflows: one per active workflow, id
 * `schedule-<workflow id>` or `poll-<workflow id>`. Names are public (operators see them): stable.
 */
export const SCHEDULE_ID_PREFIX: Record<TimedTriggerType, string> = {
  schedule: 'schedule-',
  polling: 'poll-',
};
const WORKFLOW_TYPE: Record<TimedTriggerType, string> = { schedule: 'scheduledFire', polling: 'pollTrigger' };
const KINDS = Object.keys(SCHEDULE_ID_PREFIX) as TimedTriggerType[];

/**
 * Missed fires while Temporal or every worker was down are taken if at most this late; older ones are
 * dropped (Temporal's default would replay a whole year of them at once).
 */
export const CATCHUP_WINDOW = '1 minute';
/** What a paused schedule's note says, so an operator in the Temporal UI knows why. */
export const PAUSED_NOTE = 'weft: paused because the workflow is inactive or a draft';

export const triggerScheduleId = (kind: TimedTriggerType, workflowId: string) =>
  `${SCHEDULE_ID_PREFIX[kind]}${workflowId}`;

interface DesiredSchedule {
  scheduleId: string;
  kind: TimedTriggerType;
  spec: ScheduleSpec;
  /**
   * The schedule's note while active: a human-readable summary of its spec, which the reconciler
   * also compares to find a stale schedule (a Temporal memo cannot change after creation, and
   * Temporal answers cron specs back as structured calendars, which do not compare to the cron).
   */
  note: string;
}

/** The schedule an ACTIVE timed workflow should have; null when its config is not a timed one. */
function desiredSchedule(workflow: TimedWorkflow): DesiredSchedule | null {
  if (workflow.trigger_type === 'schedule') {
    const parsed = TriggerConfigByType.schedule.safeParse(workflow.trigger_config);
    if (!parsed.success) return null;
    const { cron, timezone } = parsed.data;
    return {
      scheduleId: triggerScheduleId('schedule', workflow.id),
      kind: 'schedule',
      spec: { cronExpressions: [cron], timezone },
      note: `weft: cron "${cron}" in ${timezone}`,
    };
  }
  if (workflow.trigger_type === 'polling') {
    const parsed = TriggerConfigByType.polling.safeParse(workflow.trigger_config);
    if (!parsed.success) return null;
    const { cron, timezone, interval_minutes } = parsed.data;
    const base = { scheduleId: triggerScheduleId('polling', workflow.id), kind: 'polling' as const };
    return cron !== undefined
      ? {
          ...base,
          spec: { cronExpressions: [cron], timezone },
          note: `weft: poll on cron "${cron}" in ${timezone}`,
        }
      : {
          ...base,
          spec: { intervals: [{ every: `${interval_minutes ?? 60} minutes` }] },
          note: `weft: poll every ${interval_minutes} minutes`,
        };
  }
  return null;
}

function scheduleBody(desired: DesiredSchedule, workflow: TimedWorkflow, taskQueue: string) {
  return {
    spec: desired.spec,
    action: {
      type: 'startWorkflow' as const,
      workflowType: WORKFLOW_TYPE[desired.kind],
      // Temporal appends the fire time to this id, so every fire has its own workflow id.
      workflowId: desired.scheduleId,
      taskQueue,
      args: [{ organizationId: workflow.organizationId, workflowId: workflow.id }],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: SEARCH_ATTRIBUTES.organizationId, value: workflow.organizationId },
        { key: SEARCH_ATTRIBUTES.workflowId, value: workflow.id },
      ]),
    },
    // SKIP: a fire (or poll) that comes while the previous one still runs is dropped, so the same
    // workflow never runs twice at once from its schedule.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW },
    state: { paused: false, note: desired.note },
  };
}

async function upsertSchedule(
  client: Client,
  taskQueue: string,
  workflow: TimedWorkflow,
  desired: DesiredSchedule,
) {
  const body = scheduleBody(desired, workflow, taskQueue);
  try {
    await client.schedule.create({ scheduleId: desired.scheduleId, ...body });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(desired.scheduleId).update(() => body);
  }
}

async function ignoreMissing(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

/**
 * Brings a workflow's schedules in line with its saved state: active → its schedule exists with the
 * current spec and runs; inactive or draft → an existing schedule is paused (none is created);
 * any other trigger type → schedules of the other kinds are deleted.
 */
export async function syncTriggerSchedules(client: Client, taskQueue: string, workflow: TimedWorkflow) {
  const desired = workflow.status === 'active' ? desiredSchedule(workflow) : null;
  await Promise.all(
    KINDS.map(async (kind) => {
      const scheduleId = triggerScheduleId(kind, workflow.id);
      if (desired?.scheduleId === scheduleId) return upsertSchedule(client, taskQueue, workflow, desired);
      const handle = client.schedule.getHandle(scheduleId);
      if (workflow.trigger_type === kind) return ignoreMissing(handle.pause(PAUSED_NOTE));
      return ignoreMissing(handle.delete());
    }),
  );
}

/** Deletes both possible schedules of a deleted workflow. */
export async function removeTriggerSchedules(client: Client, workflowId: string) {
  await Promise.all(
    KINDS.map((kind) =>
      ignoreMissing(client.schedule.getHandle(triggerScheduleId(kind, workflowId)).delete()),
    ),
  );
}

export interface ReconcileReport {
  created: string[];
  updated: string[];
  paused: string[];
  deleted: string[];
  unchanged: number;
  failed: { scheduleId: string; error: string }[];
}

/**
 * Repairs drift between PostgreSQL (the truth) and Temporal's schedules, for every organization:
 * a Weft schedule whose workflow is gone or no longer of its trigger type is deleted; an active
 * timed workflow without its schedule, or with a stale or paused one, gets it created or updated;
 * an inactive one's running schedule is paused. Runs on worker start and on `weft triggers
 * reconcile`; safe to run concurrently (every step is idempotent).
 */
export async function reconcileTriggerSchedules(deps: {
  client: Client;
  taskQueue: string;
  db: Database;
}): Promise<ReconcileReport> {
  const { client, taskQueue } = deps;
  const report: ReconcileReport = {
    created: [],
    updated: [],
    paused: [],
    deleted: [],
    unchanged: 0,
    failed: [],
  };
  // The list comes from Temporal's visibility store, which lags behind writes: it is used only to
  // find orphans. A timed workflow's schedule state is read with describe, which is consistent (a
  // schedule paused a moment ago is listed as running for a while).
  const listed = new Set<string>();
  for await (const summary of client.schedule.list()) {
    if (KINDS.some((kind) => summary.scheduleId.startsWith(SCHEDULE_ID_PREFIX[kind]))) {
      listed.add(summary.scheduleId);
    }
  }
  const workflows = await listTimedWorkflows(deps.db);
  const existing = await describeSchedules(
    client,
    workflows.map((workflow) => triggerScheduleId(workflow.trigger_type as TimedTriggerType, workflow.id)),
  );
  const attempt = async (scheduleId: string, list: string[], work: () => Promise<void>) => {
    try {
      await work();
      list.push(scheduleId);
    } catch (error) {
      report.failed.push({ scheduleId, error: error instanceof Error ? error.message : String(error) });
    }
  };

  const wanted = new Set<string>();
  for (const workflow of workflows) {
    const kind = workflow.trigger_type as TimedTriggerType;
    const scheduleId = triggerScheduleId(kind, workflow.id);
    const current = existing.get(scheduleId);
    if (workflow.status !== 'active') {
      if (current === undefined) continue;
      wanted.add(scheduleId);
      if (current.paused) report.unchanged++;
      else
        await attempt(scheduleId, report.paused, () =>
          client.schedule.getHandle(scheduleId).pause(PAUSED_NOTE),
        );
      continue;
    }
    const desired = desiredSchedule(workflow);
    if (desired === null) continue;
    wanted.add(scheduleId);
    if (current === undefined) {
      await attempt(scheduleId, report.created, () => upsertSchedule(client, taskQueue, workflow, desired));
    } else if (current.paused || current.note !== desired.note) {
      await attempt(scheduleId, report.updated, () => upsertSchedule(client, taskQueue, workflow, desired));
    } else {
      report.unchanged++;
    }
  }
  for (const scheduleId of listed) {
    if (wanted.has(scheduleId)) continue;
    await attempt(scheduleId, report.deleted, () =>
      ignoreMissing(client.schedule.getHandle(scheduleId).delete()),
    );
  }
  return report;
}

/** How many describe calls the reconciler has in flight at once (it runs on every worker start). */
const DESCRIBE_CONCURRENCY = 16;

/** The current state of each existing schedule among `scheduleIds` (missing ones are left out). */
async function describeSchedules(client: Client, scheduleIds: string[]) {
  const states = new Map<string, { paused: boolean; note: string | undefined }>();
  for (let start = 0; start < scheduleIds.length; start += DESCRIBE_CONCURRENCY) {
    await Promise.all(
      scheduleIds.slice(start, start + DESCRIBE_CONCURRENCY).map(async (scheduleId) => {
        try {
          const { state } = await client.schedule.getHandle(scheduleId).describe();
          states.set(scheduleId, { paused: state.paused, note: state.note });
        } catch (error) {
          if (!(error instanceof ScheduleNotFoundError)) throw error;
        }
      }),
    );
  }
  return states;
}
