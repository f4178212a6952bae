import { schema, withTenant } from '@weft/db';
import { type GraphEdge, type GraphNode, planGraph } from '@weft/graph';
import { isLoop, workflowNodeOf } from '@weft/nodes';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { AppError, notFound, validationError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { prepareExecutions } from '../executions/prepare';
import { isUuid } from '../text';
import { presentWorkflow } from '../workflows/present';

/**
 * POST /executions/{id}/replay: what-if (DESIGN §15). A new `test` execution (`replay_of` = the
 * original) runs the workflow's current graph, or saved `version`, on the original trigger payload.
 * Side-effect steps never call out: the interpreter gives them the original's recorded outputs.
 */
export async function replayExecution({
  ctx,
  input,
  engine,
}: VerbArgs<{ id: string; version?: number }> & { engine: ExecutionEngine }) {
  if (!isUuid(input.id)) throw notFound('Execution');
  const e = schema.executions;
  const w = schema.workflows;
  const executionId = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [original] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)));
    if (!original) throw notFound('Execution');
    const [row] = await tx
      .select()
      .from(w)
      .where(and(eq(w.id, original.workflowId), eq(w.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Workflow');
    const workflow = presentWorkflow(row);
    if (input.version !== undefined && input.version !== row.version) {
      const v = schema.workflowVersions;
      const [saved] = await tx
        .select({ snapshot: v.snapshot })
        .from(v)
        .where(and(eq(v.workflowId, row.id), eq(v.version, input.version)));
      if (!saved) throw validationError({ version: [`This workflow has no version ${input.version}.`] });
      // The version's steps; the trigger stays the workflow's own (a replay never fires it).
      const snapshot = saved.snapshot as { nodes?: unknown[]; edges?: unknown[] };
      workflow.nodes = snapshot.nodes ?? [];
      workflow.edges = snapshot.edges ?? [];
      workflow.version = input.version;
    }
    refuseNestedLoops(workflow.nodes, workflow.edges, 'replayed');
    const [id] = await prepareExecutions(tx, ctx.organizationId, [
      {
        workflow,
        trigger: 'replay',
        event: original.event,
        payload: original.triggerPayload,
        mode: 'test',
        replayOf: original.id,
        testOptions: { source_execution_id: original.id },
      },
    ]);
    return id as string;
  });
  await engine.start(ctx.organizationId, [executionId]);
  return { execution_id: executionId };
}

/**
 * A loop inside a loop body cannot be replayed (or retried from its failed steps): steps are
 * recorded by (node, iteration) with the inner loop's index only, so the outer iterations'
 * recordings of an inner step are one row.
 */
export function refuseNestedLoops(
  nodes: unknown[],
  edges: unknown[],
  what: 'replayed' | 'retried from its failed steps',
) {
  const loopOf = (node: GraphNode) => isLoop(workflowNodeOf(node.type, node.type_version));
  const plan = planGraph(nodes as GraphNode[], edges as GraphEdge[], loopOf);
  for (const [outer, body] of plan.loopBodies) {
    const inner = [...body].find((id) => plan.loopBodies.has(id));
    if (inner) {
      throw new AppError(
        'validation_error',
        `This workflow cannot be ${what}: loop step "${inner}" is inside the body of loop "${outer}", and recorded steps are matched by one loop index only. Use a test run instead.`,
      );
    }
  }
}
