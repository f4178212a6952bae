import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { assertToolArguments } from '../tools/call-tool';
import { presentWorkflow } from '../workflows/present';
import type { ExecutionEngine } from './execution-engine';
import { prepareExecutionSnapshots } from './prepare';
import type { LoadedExecution } from './types';

/**
 * POST /workflows/{id}/execute: runs a workflow now, whatever its status (a draft can be tried out),
 * with `input` as its trigger payload (a tool workflow's checked against its input schema: 422 on `input`). The run is started in Temporal before this returns, so an
 * accepted execution survives the API process dying right after answering.
 */
export async function executeWorkflow({
  ctx,
  input,
  engine,
}: VerbArgs<{ workflowId: string; payload: unknown; trigger: 'api' | 'manual' }> & {
  engine: ExecutionEngine;
}) {
  if (!isUuid(input.workflowId)) throw notFound('Workflow');
  const t = schema.workflows;
  const { snapshot, startedAt } = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.workflowId), eq(t.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Workflow');
    // A tool workflow takes only input its input schema accepts, from the API as from a caller.
    if (row.triggerType === 'tool') assertToolArguments(row, input.payload ?? {}, 'input');
    const [recorded] = await prepareExecutionSnapshots(tx, ctx.organizationId, [
      { workflow: presentWorkflow(row), trigger: input.trigger, event: null, payload: input.payload ?? {} },
    ]);
    return { snapshot: recorded as LoadedExecution, startedAt: new Date() };
  });
  // The run starts from the row just recorded instead of loading it back.
  await engine.start(ctx.organizationId, [snapshot.executionId], [snapshot]);
  return {
    execution_id: snapshot.executionId,
    workflow_id: input.workflowId,
    status: 'pending' as const,
    started_at: startedAt.toISOString(),
  };
}
