import { ApplicationFailure } from '@temporalio/common';
import { type Database, schema, withTenant } from '@weft/db';
import { notFound, prepareExecutions, presentWorkflow } from '@weft/services';
import { and, eq } from 'drizzle-orm';

/** Records the child execution of action.workflow.execute: a workflow of the same organization only. */
export async function prepareChildExecution(
  db: Database,
  args: { organizationId: string; parentExecutionId: string; workflowId: string; payload: unknown },
): Promise<string> {
  const t = schema.workflows;
  return withTenant(db, args.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, args.workflowId), eq(t.organizationId, args.organizationId)));
    if (!row) {
      throw ApplicationFailure.nonRetryable(notFound('Workflow').message, 'not_found');
    }
    const [id] = await prepareExecutions(tx, args.organizationId, [
      {
        workflow: presentWorkflow(row),
        trigger: 'workflow',
        event: null,
        payload: args.payload ?? {},
        parentExecutionId: args.parentExecutionId,
      },
    ]);
    return id as string;
  });
}
