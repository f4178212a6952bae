import { schema, type Tx } from '@weft/db';
import type { WorkflowResource } from '../workflows/present';
import { loadedExecutionOf } from './progress';
import type { ExecutionMode, LoadedExecution, TestOptions } from './types';

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
  const rows = await pendingInsert(tx, organizationId, items).returning({ id: schema.executions.id });
  return rows.map((r) => r.id);
}

/**
 * prepareExecutions, answering the recorded rows as the snapshots their runs start from: the
 * engine hands them to the workflows, which then need not load them back (one local activity and
 * one transaction fewer per execution).
 */
export async function prepareExecutionSnapshots(
  tx: Tx,
  organizationId: string,
  items: PrepareExecution[],
): Promise<LoadedExecution[]> {
  if (items.length === 0) return [];
  const e = schema.executions;
  const rows = await pendingInsert(tx, organizationId, items).returning({
    id: e.id,
    organization_id: e.organizationId,
    workflow_id: e.workflowId,
    workflow_name: e.workflowName,
    graph: e.graph,
    trigger: e.trigger,
    event: e.event,
    trigger_payload: e.triggerPayload,
    started_at: e.startedAt,
    status: e.status,
    attempt: e.attempt,
    mode: e.mode,
    replay_of: e.replayOf,
    test_options: e.testOptions,
    retry_of: e.retryOf,
  });
  return rows.map((row) => loadedExecutionOf(row));
}

/** The insert of `pending` rows, for the caller to say what it returns. */
function pendingInsert(tx: Tx, organizationId: string, items: PrepareExecution[]) {
  return tx.insert(schema.executions).values(
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
  );
}
