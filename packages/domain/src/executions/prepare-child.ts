import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { notFound } from '../errors';
import { presentWorkflow } from '../workflows/present';
import { prepareExecutions } from './prepare';

/**
 * Records the child execution of action.workflow.execute: a workflow of the same organization only
 * (another organization's id is not found). Returns the new execution's id.
 */
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
    if (!row) throw notFound('Workflow');
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
