import { schema, type Tx } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { refuseNestedLoops } from '../workbench/replay';
import { presentWorkflow } from '../workflows/present';
import { prepareExecutions } from './prepare';

type ExecutionRow = typeof schema.executions.$inferSelect;

/**
 * A partial execution has ended (its workflow run is over), so it cannot resume in place as a
 * failed one does: its retry is a new production execution of the workflow's saved graph on the
 * same trigger payload, `retry_of` the original. The interpreter reuses each step the original
 * completed and runs again its failed steps and everything after them (temporal/workflows/graph/
 * workbench.ts), so the steps that worked (an e-mail sent, an order created) are not repeated.
 * Returns the new execution's id; the caller starts it.
 */
export async function prepareRetryOfPartial(
  tx: Tx,
  ctx: VerbArgs<unknown>['ctx'],
  original: ExecutionRow,
): Promise<string> {
  // Once only: a second retry would run the failed steps (an e-mail, an order) again. The caller
  // holds the original's row lock, so two requests at once see each other's retry.
  const [earlier] = await tx
    .select({ id: schema.executions.id })
    .from(schema.executions)
    .where(
      and(
        eq(schema.executions.organizationId, ctx.organizationId),
        eq(schema.executions.retryOf, original.id),
      ),
    )
    .limit(1);
  if (earlier) {
    throw new AppError(
      'conflict',
      `This partial execution was already retried as execution ${earlier.id}; open that one (and retry it, if it is partial or failed).`,
    );
  }
  const w = schema.workflows;
  const [row] = await tx
    .select()
    .from(w)
    .where(and(eq(w.id, original.workflowId), eq(w.organizationId, ctx.organizationId)));
  if (!row) throw notFound('Workflow');
  const workflow = presentWorkflow(row);
  refuseNestedLoops(workflow.nodes, workflow.edges, 'retried from its failed steps');
  const [id] = await prepareExecutions(tx, ctx.organizationId, [
    {
      workflow,
      trigger: 'retry',
      event: original.event,
      payload: original.triggerPayload,
      parentExecutionId: original.parentExecutionId,
      retryOf: original.id,
    },
  ]);
  return id as string;
}
