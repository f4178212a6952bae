import { schema, type Tx } from '@weft/db';
import type { WorkflowResource } from '../workflows/present';
import type { ExecutionMode, TestOptions } from './types';

export interface PrepareExecution {
  workflow: Pick<
    WorkflowResource,
    'id' | 'name' | 'version' | 'trigger_type' | 'trigger_config' | 'nodes' | 'edges'
  >;
  trigger: string;
  event: string | null;
  payload: unknown;
  parentExecutionId?: string | null;
  /** `test` for workbench runs (test runs and replays); production by default. */
  mode?: ExecutionMode;
  replayOf?: string | null;
  testOptions?: TestOptions | null;
  /** A retry of a partial execution from its failed steps (retry.ts). */
  retryOf?: string | null;
  /** A caller-derived id (polling: from the item's dedup key), so a retried recording cannot add a second. */
  executionId?: string;
}

/**
 * Records executions as `pending` with a snapshot of their workflow's graph, inside the caller's
 * tenancy transaction. The engine then starts them; an execution row always exists before its run.
 */
export async function prepareExecutions(
  tx: Tx,
  organizationId: string,
  items: PrepareExecution[],
): Promise<string[]> {
  if (items.length === 0) return [];
  const rows = await tx
    .insert(schema.executions)
    .values(
      items.map((item) => ({
        ...(item.executionId === undefined ? {} : { id: item.executionId }),
        organizationId,
        workflowId: item.workflow.id,
        workflowName: item.workflow.name,
        workflowVersion: item.workflow.version,
        graph: {
          trigger_type: item.workflow.trigger_type,
          trigger_config: item.workflow.trigger_config,
          nodes: item.workflow.nodes,
          edges: item.workflow.edges,
        },
        status: 'pending' as const,
        trigger: item.trigger,
        event: item.event,
        triggerPayload: item.payload ?? {},
        parentExecutionId: item.parentExecutionId ?? null,
        mode: item.mode ?? 'production',
        replayOf: item.replayOf ?? null,
        testOptions: item.testOptions ?? null,
        retryOf: item.retryOf ?? null,
      })),
    )
    .returning({ id: schema.executions.id });
  return rows.map((r) => r.id);
}
