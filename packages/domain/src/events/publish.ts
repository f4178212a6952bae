import { schema, type Tx, withTenant } from '@weft/db';
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  type CartActivity,
  cartIdOf,
  closesCartTimer,
  DEFAULT_CART_INACTIVITY_MINUTES,
  refreshesCartTimer,
} from '../carts/cart-activity';
import type { VerbArgs } from '../context';
import type { ExecutionEngine } from '../executions/execution-engine';
import { loadedExecutionOf } from '../executions/progress';
import type { ExecutionMode } from '../executions/types';
import { storedText } from '../text';

export const PublishEventInput = z.object({
  event: storedText(
    z
      .string()
      .regex(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/, 'must look like category.action (lower case, dot separated)')
      .max(100),
  ),
  payload: z.record(z.string(), z.unknown()),
});
export type PublishEventInput = z.infer<typeof PublishEventInput>;

/** `order.item.created` is matched by `order.item.created`, `order.item.*` and `order.*`. */
export function eventPatterns(event: string): string[] {
  const parts = event.split('.');
  const patterns = [event];
  for (let i = parts.length - 1; i >= 1; i--) patterns.push(`${parts.slice(0, i).join('.')}.*`);
  return patterns;
}

/** Workflows a publish runs besides the event's listeners (their executions record their own trigger). */
export type AlsoRun =
  /** An inbound hook's workflow (trigger `webhook`). */
  | { hookedWorkflowId: string; chatWorkflows?: never }
  | {
      /** An inbound chat message: every workflow with trigger_type `chat` (trigger `chat`). */
      chatWorkflows: true;
      hookedWorkflowId?: never;
      /**
       * Fields added to the `trigger` of the chat runs started now and stored nowhere in PostgreSQL:
       * they reach the workflow through Temporal (whose payloads are encrypted), e.g. the sender's number.
       */
      runOnlyPayload?: Record<string, unknown>;
    };

/**
 * Publishes an event inside the caller's organization: every ACTIVE workflow whose trigger is that
 * event (exactly, or by `category.*`) gets an execution with the payload as `trigger`, and executions
 * waiting for the event (action.wait_for_event) receive it. The executions are recorded and handed to
 * Temporal before this returns; `error.critical` never triggers on itself (loop guard in the caller).
 *
 * Also, in the same transaction, the event name is recorded for GET /event-types; and a `cart.*`
 * event with a `cart_id` starts or refreshes that cart's abandonment timer (`order.created` stops
 * it). `alsoRun` adds an inbound hook's workflow, or every chat-triggered workflow, in the same
 * statement as the event's listeners.
 */
export async function publishEvent({
  ctx,
  input,
  engine,
  trigger = 'event',
  parentExecutionId = null,
  alsoRun,
  inTransaction,
}: VerbArgs<PublishEventInput> & {
  engine: ExecutionEngine;
  /** What the executions of the event's listeners record as their trigger. */
  trigger?: 'event' | 'webhook' | 'chat' | 'schedule' | 'polling' | 'workflow';
  /** The execution whose node published the event (action.event_publish). */
  parentExecutionId?: string | null;
  /** Workflows that run besides the event's listeners, in the same statement. */
  alsoRun?: AlsoRun;
  /**
   * Runs in the publish transaction once the executions are inserted, before anything is committed
   * or started: a record that must exist exactly when the executions do (an inbound hook's receipt).
   * Throwing rolls the executions back, and nothing starts.
   */
  inTransaction?: (tx: Tx, executionIds: string[]) => Promise<void>;
}) {
  const cartId = cartIdOf(input.payload);
  const recorded = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    // An event a test run publishes stays in test mode (DESIGN §15): its listeners run as test runs,
    // it wakes only test runs, and it leaves the organization's cart timers alone.
    const mode = parentExecutionId ? await modeOf(tx, parentExecutionId) : 'production';
    const rows = await insertPendingExecutions(tx, ctx.organizationId, input, {
      workflows: workflowsToRun(input.event, trigger, alsoRun),
      parentExecutionId,
      mode,
    });
    await inTransaction?.(
      tx,
      rows.map((r) => r.id),
    );
    // Independent reads and writes of one transaction, sent together (postgres.js pipelines them).
    const [, cartActivity, waitingIds] = await Promise.all([
      recordEventName(tx, ctx.organizationId, input.event),
      mode === 'production' && cartId !== null && refreshesCartTimer(input.event)
        ? cartActivityOf(tx, ctx.organizationId, input)
        : null,
      executionsWaitingFor(tx, ctx.organizationId, input.event, mode),
    ]);
    return {
      mode,
      executionIds: rows.map((r) => r.id),
      snapshots: rows
        .map(loadedExecutionOf)
        .map((snapshot) =>
          withRunOnlyPayload(snapshot, alsoRun?.chatWorkflows ? alsoRun.runOnlyPayload : undefined),
        ),
      cartActivity,
      waitingIds,
    };
  });
  await handToEngine(
    engine,
    ctx.organizationId,
    input,
    recorded.mode === 'production' ? cartId : null,
    recorded,
  );
  return {
    message: `Event ${input.event} accepted.`,
    event: input.event,
    workflows_triggered: recorded.executionIds.length,
    execution_ids: recorded.executionIds,
  };
}

const t = schema.workflows;

/**
 * Which workflows a publish runs, as SQL: the active listeners of the event, plus the inbound hook's
 * workflow or every chat-triggered one; and the `trigger` each execution records.
 */
function workflowsToRun(event: string, trigger: string, also: AlsoRun | undefined) {
  const listens = and(
    eq(t.triggerType, 'event'),
    inArray(sql`${t.triggerConfig}->>'event'`, eventPatterns(event)),
  );
  const hooked = also?.hookedWorkflowId
    ? and(eq(t.id, also.hookedWorkflowId), eq(t.triggerType, 'webhook'))
    : also?.chatWorkflows
      ? eq(t.triggerType, 'chat')
      : undefined;
  return {
    where: hooked ? or(listens, hooked) : listens,
    orderBy: hooked ? sql`(${hooked}) desc, ${t.id}` : t.id,
    triggerOf: hooked
      ? sql`case when ${hooked} then ${also?.hookedWorkflowId ? 'webhook' : 'chat'} else ${trigger} end`
      : sql`${trigger}`,
  };
}

/**
 * One statement copies every matching workflow's graph into a pending execution inside PostgreSQL:
 * a fan-out to hundreds of workflows costs one round trip, not a read and a write of every graph.
 * (uuidv7() is built into PostgreSQL 18, the version Weft runs on.)
 */
async function insertPendingExecutions(
  tx: Tx,
  organizationId: string,
  input: PublishEventInput,
  {
    workflows,
    parentExecutionId,
    mode,
  }: {
    workflows: ReturnType<typeof workflowsToRun>;
    parentExecutionId: string | null;
    mode: ExecutionMode;
  },
) {
  return tx.execute<Parameters<typeof loadedExecutionOf>[0]>(sql`
      insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph, status,
                              trigger, event, trigger_payload, parent_execution_id, mode)
      select uuidv7(), ${t.organizationId}, ${t.id}, ${t.name}, ${t.version},
             jsonb_build_object('trigger_type', ${t.triggerType}, 'trigger_config', ${t.triggerConfig},
                                'nodes', ${t.nodes}, 'edges', ${t.edges}),
             'pending', ${workflows.triggerOf}, ${input.event}, ${JSON.stringify(input.payload)}::jsonb, ${parentExecutionId}, ${mode}
      from ${t}
      where ${and(eq(t.organizationId, organizationId), eq(t.status, 'active'), workflows.where)}
      order by ${workflows.orderBy}
      returning id, organization_id, workflow_id, workflow_name, graph, trigger, event, trigger_payload,
                started_at, status, attempt, mode`);
}

/** The mode of the execution that published the event (production if it is gone). */
async function modeOf(tx: Tx, executionId: string): Promise<ExecutionMode> {
  const e = schema.executions;
  const [row] = await tx.select({ mode: e.mode }).from(e).where(eq(e.id, executionId));
  return row?.mode === 'test' ? 'test' : 'production';
}

/**
 * The organization's own event names for the catalog (GET /event-types). `last_seen_at` moves at
 * most once a minute: updating it on every publish made one row lock that every concurrent publish
 * of the same event queued on until commit. DO NOTHING and an UPDATE whose condition fails take no
 * row lock.
 */
async function recordEventName(tx: Tx, organizationId: string, event: string) {
  const n = schema.eventNames;
  await tx.execute(sql`
        with added as (
          insert into ${n} (organization_id, name) values (${organizationId}, ${event})
          on conflict (organization_id, name) do nothing
          returning 1)
        update ${n} set last_seen_at = now()
        where ${n.organizationId} = ${organizationId} and ${n.name} = ${event}
          and ${n.lastSeenAt} < now() - interval '1 minute' and not exists (select 1 from added)`);
}

/** What a `cart.*` event tells the cart's abandonment timer, with the organization's inactivity setting. */
async function cartActivityOf(
  tx: Tx,
  organizationId: string,
  input: PublishEventInput,
): Promise<CartActivity> {
  const s = schema.organizationSettings;
  const [settings] = await tx
    .select({ minutes: s.cartInactivityMinutes })
    .from(s)
    .where(eq(s.organizationId, organizationId));
  return {
    event: input.event,
    payload: input.payload,
    inactivityMinutes: settings?.minutes ?? DEFAULT_CART_INACTIVITY_MINUTES,
  };
}

/**
 * Executions paused on this event (action.wait_for_event); the partial index
 * execution_steps_waiting_event keeps this look-up small however many steps there are.
 */
async function executionsWaitingFor(
  tx: Tx,
  organizationId: string,
  event: string,
  mode: ExecutionMode,
): Promise<string[]> {
  const s = schema.executionSteps;
  const e = schema.executions;
  const waiting = await tx
    .selectDistinct({ executionId: s.executionId })
    .from(s)
    .where(
      and(
        eq(s.organizationId, organizationId),
        // A test run's event wakes test runs only (a real event may still wake a test run waiting for it).
        mode === 'test'
          ? sql`exists (select 1 from ${e} where ${e.id} = ${s.executionId} and ${e.mode} = 'test')`
          : undefined,
        // Literals, not parameters: a cached generic plan can use the partial index only then.
        sql`${s.status} = 'waiting' and ${s.nodeType} = 'action.wait_for_event'`,
        sql`${s.resolvedConfig}->>'event' = ${event}`,
      ),
    );
  return waiting.map((w) => w.executionId);
}

/** Run-only fields go to chat-triggered runs only: their steps are stored with them masked. */
function withRunOnlyPayload<S extends { trigger: string; payload: unknown }>(
  snapshot: S,
  runOnlyPayload: Record<string, unknown> | undefined,
): S {
  return runOnlyPayload && snapshot.trigger === 'chat'
    ? { ...snapshot, payload: { ...(snapshot.payload as Record<string, unknown>), ...runOnlyPayload } }
    : snapshot;
}

/** After commit: start the new executions, wake the waiting ones, and move the cart's timer. */
async function handToEngine(
  engine: ExecutionEngine,
  organizationId: string,
  input: PublishEventInput,
  cartId: string | null,
  recorded: {
    executionIds: string[];
    snapshots: Parameters<ExecutionEngine['start']>[2];
    cartActivity: CartActivity | null;
    waitingIds: string[];
  },
) {
  await Promise.all([
    engine.start(organizationId, recorded.executionIds, recorded.snapshots),
    recorded.waitingIds.length > 0
      ? engine.deliverEvent(recorded.waitingIds, input.event, input.payload)
      : undefined,
    cartId !== null && recorded.cartActivity
      ? engine.touchCart(organizationId, cartId, recorded.cartActivity)
      : undefined,
    cartId !== null && closesCartTimer(input.event) ? engine.closeCart(organizationId, cartId) : undefined,
  ]);
}
