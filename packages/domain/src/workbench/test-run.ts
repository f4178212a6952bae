import { schema, type Tx, withTenant } from '@weft/db';
import { checkTestRunBounds, type GraphEdge, type GraphNode, planGraph } from '@weft/graph';
import { isLoop, workflowNodeOf } from '@weft/nodes';
import { and, desc, eq, notInArray } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound, validationError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { prepareExecutions } from '../executions/prepare';
import type { TestOptions } from '../executions/types';
import { isUuid } from '../text';
import { presentWorkflow } from '../workflows/present';

export interface TestRunInput {
  workflowId: string;
  /** The trigger payload; without it a run with start_at reuses its source execution's. */
  payload?: Record<string, unknown>;
  startAt?: string;
  stopAfter?: string;
  /** Where steps before start_at take their outputs from; default: the workflow's last run. */
  sourceExecutionId?: string;
}

/** The workflow's most recent execution that got past starting (any mode): "the last run". */
async function lastRun(tx: Tx, workflowId: string) {
  const e = schema.executions;
  const [row] = await tx
    .select({ id: e.id, triggerPayload: e.triggerPayload })
    .from(e)
    .where(and(eq(e.workflowId, workflowId), notInArray(e.status, ['pending'])))
    .orderBy(desc(e.startedAt), desc(e.id))
    .limit(1);
  return row;
}

async function namedSource(tx: Tx, workflowId: string, id: string) {
  const e = schema.executions;
  const [row] = isUuid(id)
    ? await tx
        .select({ id: e.id, triggerPayload: e.triggerPayload, workflowId: e.workflowId })
        .from(e)
        .where(eq(e.id, id))
    : [];
  if (!row || row.workflowId !== workflowId)
    throw validationError({ source_execution_id: ['No execution of this workflow has this id.'] });
  return row;
}

/**
 * POST /workflows/{id}/test: a `test` execution of the saved graph (DESIGN §15). Pinned outputs
 * replace their nodes; with `start_at`, the nodes before it take their outputs from the source
 * execution (the last run unless named) or their pins, and the trigger payload is the source's
 * unless `input` is given; with `stop_after`, nothing after that node runs. start_at = stop_after
 * runs one step.
 */
export async function startTestRun({
  ctx,
  input,
  engine,
}: VerbArgs<TestRunInput> & { engine: ExecutionEngine }) {
  if (!isUuid(input.workflowId)) throw notFound('Workflow');
  const t = schema.workflows;
  const executionId = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.workflowId), eq(t.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Workflow');
    const plan = planGraph(row.nodes as GraphNode[], row.edges as GraphEdge[], (node) =>
      isLoop(workflowNodeOf(node.type, node.type_version)),
    );
    const problems = checkTestRunBounds(plan, { start_at: input.startAt, stop_after: input.stopAfter });
    if (Object.keys(problems).length > 0) {
      const first = Object.values(problems)[0]?.[0];
      throw validationError(problems, first);
    }
    const source = input.sourceExecutionId
      ? await namedSource(tx, row.id, input.sourceExecutionId)
      : input.startAt
        ? await lastRun(tx, row.id)
        : undefined;
    const testOptions: TestOptions = {
      ...(input.startAt ? { start_at: input.startAt } : {}),
      ...(input.stopAfter ? { stop_after: input.stopAfter } : {}),
      ...(source ? { source_execution_id: source.id } : {}),
    };
    const payload = input.payload ?? (input.startAt && source ? source.triggerPayload : {});
    const [id] = await prepareExecutions(tx, ctx.organizationId, [
      {
        workflow: presentWorkflow(row),
        trigger: 'test',
        event: null,
        payload,
        mode: 'test',
        testOptions,
      },
    ]);
    return id as string;
  });
  await engine.start(ctx.organizationId, [executionId]);
  return { execution_id: executionId };
}
