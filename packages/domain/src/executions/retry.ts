import { schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { isUuid } from '../text';
import type { ExecutionEngine } from './execution-engine';
import { prepareRetryOfPartial } from './retry-partial';

/**
 * POST /executions/{id}/retry: a `failed` or `partial` production execution (else 409).
 * - failed: the same execution resumes in place at its failed node with `attempt` + 1; completed
 *   steps keep their outputs and are not run again. If the operator changed the failed node's
 *   config in the workflow since (same node id and type), the retried step runs with the saved
 *   config; every other node keeps the snapshot.
 * - partial: it has ended, so a new execution (`retry_of` it) runs the saved workflow, reusing the
 *   completed steps and running the failed ones and what follows them (retry-partial.ts).
 */
export async function retryExecution({
  ctx,
  input,
  engine,
}: VerbArgs<{ id: string }> & { engine: ExecutionEngine }) {
  if (!isUuid(input.id)) throw notFound('Execution');
  const e = schema.executions;
  const claimed = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)))
      .for('update');
    if (!row) throw notFound('Execution');
    if (row.mode === 'test') {
      // A test run or replay ends when it fails (no run waits for a retry): run it again instead.
      throw new AppError(
        'conflict',
        'Test runs and replays cannot be retried; start a new test run (or replay) instead.',
      );
    }
    if (row.status === 'partial') {
      return { kind: 'new' as const, retryId: await prepareRetryOfPartial(tx, ctx, row) };
    }
    if (row.status !== 'failed') {
      throw new AppError(
        'conflict',
        `Only failed and partial executions can be retried; this one is ${row.status}.`,
      );
    }
    if (row.error?.code === 'retry_expired') {
      throw new AppError(
        'conflict',
        'This execution can no longer be retried: its 7-day retry window has passed.',
      );
    }
    const failedStep = await tx
      .select({ nodeId: schema.executionSteps.nodeId, nodeType: schema.executionSteps.nodeType })
      .from(schema.executionSteps)
      .where(and(eq(schema.executionSteps.executionId, row.id), eq(schema.executionSteps.status, 'failed')))
      .limit(1);
    let nodeConfig: Record<string, unknown> | undefined;
    const failed = failedStep[0];
    if (failed) {
      const [workflow] = await tx
        .select({ nodes: schema.workflows.nodes })
        .from(schema.workflows)
        .where(
          and(
            eq(schema.workflows.id, row.workflowId),
            eq(schema.workflows.organizationId, ctx.organizationId),
          ),
        );
      const current = (
        workflow?.nodes as { id: string; type: string; config: Record<string, unknown> }[] | undefined
      )?.find((n) => n.id === failed.nodeId && n.type === failed.nodeType);
      nodeConfig = current?.config;
    }
    const [updated] = await tx
      .update(e)
      .set({
        status: 'running',
        attempt: sql`${e.attempt} + 1`,
        error: null,
        completedAt: null,
        durationMs: null,
      })
      .where(eq(e.id, row.id))
      .returning();
    return {
      kind: 'resume' as const,
      attempt: updated?.attempt ?? row.attempt + 1,
      nodeConfig,
      previous: row,
    };
  });
  if (claimed.kind === 'new') {
    await engine.start(ctx.organizationId, [claimed.retryId]);
    return { id: claimed.retryId, status: 'running' as const, attempt: 1, retry_of: input.id };
  }
  const resumed = await engine.retry(input.id, { attempt: claimed.attempt, nodeConfig: claimed.nodeConfig });
  if (!resumed) {
    // The run is gone from Temporal (past retention): put the record back as it was.
    await withTenant(ctx.db, ctx.organizationId, (tx) =>
      tx
        .update(e)
        .set({
          status: 'failed',
          attempt: claimed.previous.attempt,
          error: claimed.previous.error,
          completedAt: claimed.previous.completedAt,
          durationMs: claimed.previous.durationMs,
        })
        .where(eq(e.id, input.id)),
    );
    throw new AppError('conflict', 'This execution can no longer be retried (its run has expired).');
  }
  return { id: input.id, status: 'running' as const, attempt: claimed.attempt };
}
