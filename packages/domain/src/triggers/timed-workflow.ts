import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';

/** Trigger types whose runs a Temporal Schedule starts (one per workflow). */
export const TIMED_TRIGGER_TYPES = ['schedule', 'polling'] as const;
export type TimedTriggerType = (typeof TIMED_TRIGGER_TYPES)[number];

export function isTimedTrigger(triggerType: string): triggerType is TimedTriggerType {
  return (TIMED_TRIGGER_TYPES as readonly string[]).includes(triggerType);
}

/** What the schedule sync needs to know about a workflow: never its graph. */
export interface TimedWorkflow {
  id: string;
  organizationId: string;
  status: string;
  trigger_type: string;
  trigger_config: Record<string, unknown>;
}

/**
 * Every schedule- and polling-triggered workflow of every organization, for the reconciler. Reads
 * across tenants through the reviewed SECURITY DEFINER function `weft_list_timed_workflows()` (ids,
 * status and trigger columns only), since the runtime role never bypasses RLS.
 */
export async function listTimedWorkflows(db: Database): Promise<TimedWorkflow[]> {
  const rows = await db.execute<{
    workflow_id: string;
    organization_id: string;
    status: string;
    trigger_type: string;
    trigger_config: Record<string, unknown>;
  }>(sql`select * from weft_list_timed_workflows()`);
  return rows.map((r) => ({
    id: r.workflow_id,
    organizationId: r.organization_id,
    status: r.status,
    trigger_type: r.trigger_type,
    trigger_config: r.trigger_config,
  }));
}
