import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { notFound } from '../errors';
import { assertToolArguments } from '../tools/call-tool';
import { presentWorkflow } from '../workflows/present';
import { prepareExecutions } from './prepare';

/**
 * Records the child execution of action.workflow.execute: a workflow of the same organization only
 * (another organization's id is not found), in its parent's mode. A tool workflow's arguments are
 * validated against its input schema (invalid: a validation error, nothing recorded). Returns the new execution's id.
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
    // A tool workflow takes only arguments its input schema accepts, whoever calls it.
    const isTool = row.triggerType === 'tool';
    if (isTool) assertToolArguments(row, args.payload ?? {});
    // A test run's child is a test run too: pins apply and it is listed (and kept quiet) as one.
    const e = schema.executions;
    const [parent] = await tx.select({ mode: e.mode }).from(e).where(eq(e.id, args.parentExecutionId));
    const [id] = await prepareExecutions(tx, args.organizationId, [
      {
        workflow: presentWorkflow(row),
        trigger: isTool ? 'tool' : 'workflow',
        event: null,
        payload: args.payload ?? {},
        parentExecutionId: args.parentExecutionId,
        mode: parent?.mode ?? 'production',
      },
    ]);
    return id as string;
  });
}
