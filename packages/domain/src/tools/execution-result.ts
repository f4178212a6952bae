import { type Database, schema, withTenant } from '@weft/db';
import { eq } from 'drizzle-orm';
import { notFound } from '../errors';
import { loadPresentedSteps } from '../executions/get';
import { findToolWorkflow } from './call-tool';
import { toolResult } from './tool-result';

/** How an agent sees a tool workflow: its trigger's name, description and input schema. */
export async function describeToolWorkflow(
  db: Database,
  args: { organizationId: string; workflowId: string },
): Promise<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  const row = await withTenant(db, args.organizationId, (tx) =>
    findToolWorkflow(tx, args.organizationId, { workflowId: args.workflowId }),
  );
  const config = row.triggerConfig as Record<string, unknown>;
  return {
    name: String(config.name),
    description: String(config.description ?? ''),
    input_schema: (config.input_schema ?? { type: 'object' }) as Record<string, unknown>,
  };
}

/** A finished tool execution's result (DESIGN §14), or why it has none. */
export async function toolExecutionResult(
  db: Database,
  args: { organizationId: string; executionId: string },
): Promise<{ status: string; result: unknown; error: string | null }> {
  return withTenant(db, args.organizationId, async (tx) => {
    const e = schema.executions;
    const [row] = await tx
      .select({ status: e.status, error: e.error, graph: e.graph })
      .from(e)
      .where(eq(e.id, args.executionId));
    if (!row) throw notFound('Execution');
    if (row.status !== 'success' && row.status !== 'partial') {
      const error = row.error as { message?: string } | null;
      return {
        status: row.status,
        result: null,
        error: error?.message ?? `The tool's execution ended ${row.status}.`,
      };
    }
    const steps = await loadPresentedSteps(tx, args.executionId);
    return { status: row.status, result: toolResult(row.graph, steps), error: null };
  });
}
