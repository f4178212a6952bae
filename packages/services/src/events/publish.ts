import { schema, withTenant } from '@weft/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { VerbArgs } from '../context';
import type { ExecutionEngine } from '../executions/engine';
import { StoredText } from '../text';

export const PublishEventInput = z.object({
  event: StoredText.pipe(
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

/**
 * Publishes an event inside the caller's organization: every ACTIVE workflow whose trigger is that
 * event (exactly, or by `category.*`) gets an execution with the payload as `trigger`, and executions
 * waiting for the event (action.wait_for_event) receive it. The executions are recorded and handed to
 * Temporal before this returns; `error.critical` never triggers on itself (loop guard in the caller).
 */
export async function publishEvent({
  ctx,
  input,
  engine,
  trigger = 'event',
  parentExecutionId = null,
}: VerbArgs<PublishEventInput> & {
  engine: ExecutionEngine;
  trigger?: 'event' | 'webhook' | 'chat' | 'schedule' | 'polling' | 'workflow';
  parentExecutionId?: string | null;
}) {
  const t = schema.workflows;
  // One statement copies every matching workflow's graph into a pending execution inside PostgreSQL:
  // a fan-out to hundreds of workflows costs one round trip, not a read and a write of every graph.
  // (uuidv7() is built into PostgreSQL 18, the version Weft runs on.)
  const executionIds = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const rows = await tx.execute<{ id: string }>(sql`
      insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph, status,
                              trigger, event, trigger_payload, parent_execution_id)
      select uuidv7(), ${t.organizationId}, ${t.id}, ${t.name}, ${t.version},
             jsonb_build_object('trigger_type', ${t.triggerType}, 'trigger_config', ${t.triggerConfig},
                                'nodes', ${t.nodes}, 'edges', ${t.edges}),
             'pending', ${trigger}, ${input.event}, ${JSON.stringify(input.payload)}::jsonb, ${parentExecutionId}
      from ${t}
      where ${and(
        eq(t.organizationId, ctx.organizationId),
        eq(t.status, 'active'),
        eq(t.triggerType, 'event'),
        inArray(sql`${t.triggerConfig}->>'event'`, eventPatterns(input.event)),
      )}
      order by ${t.id}
      returning id`);
    return rows.map((r) => r.id);
  });
  await Promise.all([
    engine.start(ctx.organizationId, executionIds),
    engine.deliverEvent(ctx.organizationId, input.event, input.payload),
  ]);
  return {
    message: `Event ${input.event} accepted.`,
    event: input.event,
    workflows_triggered: executionIds.length,
    execution_ids: executionIds,
  };
}
