import { queryInTenant, schema, type Tx, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { AppError, notFound, validationError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { loadPresentedSteps } from '../executions/get';
import { prepareExecutions } from '../executions/prepare';
import { isUuid } from '../text';
import { presentWorkflow } from '../workflows/present';
import { argumentProblems } from './input-schema';
import { toolResult } from './tool-result';

type WorkflowRow = typeof schema.workflows.$inferSelect;

/** Which tool: by name (an active tool workflow, as MCP clients call it) or by workflow id (any status). */
export type ToolRef = { name: string } | { workflowId: string };

/** The organization's tool workflow `ref` names; an unknown one (or another organization's) is not found. */
export async function findToolWorkflow(tx: Tx, organizationId: string, ref: ToolRef): Promise<WorkflowRow> {
  const t = schema.workflows;
  const where =
    'name' in ref
      ? and(eq(t.status, 'active'), sql`${t.triggerConfig}->>'name' = ${ref.name}`)
      : isUuid(ref.workflowId)
        ? eq(t.id, ref.workflowId)
        : sql`false`;
  const [row] = await tx
    .select()
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.triggerType, 'tool'), where))
    .limit(1);
  if (!row) throw notFound('Tool');
  return row;
}

/**
 * Refuses arguments its input schema does not accept (422, fields under `field`: `arguments` for a
 * tool call, `input` for POST /workflows/{id}/execute): nothing runs.
 */
export function assertToolArguments(
  workflow: Pick<WorkflowRow, 'triggerConfig'>,
  args: unknown,
  field: 'arguments' | 'input' = 'arguments',
): void {
  const inputSchema = (workflow.triggerConfig.input_schema ?? { type: 'object' }) as Record<string, unknown>;
  const problems = argumentProblems(inputSchema, args);
  if (problems.length > 0) {
    throw validationError(
      { [field]: problems },
      `The arguments do not match the tool's input schema: ${problems.join('; ')}.`,
    );
  }
}

export interface ToolCallOutcome {
  execution_id: string;
  /** The execution's status; `running`, `waiting` or `pending` when the wait ran out first. */
  status: string;
  /** The execution ended within the wait. */
  finished: boolean;
  /** The tool's result (see toolResult); null unless it finished with `success` or `partial`. */
  result: unknown;
  error: { message: string; code: string } | null;
}

const FINISHED = new Set(['success', 'partial', 'failed', 'cancelled']);

/**
 * Calls a tool workflow (DESIGN §14): the arguments are validated against its input schema
 * (invalid: a 422 and nothing runs), become the `trigger` of an execution with trigger `tool`
 * (a child of `parentExecutionId` when another execution calls), which is started and waited for
 * up to `timeoutMs`. A failed execution ends the wait at once (it does not wait for a retry).
 */
export async function callToolWorkflow({
  ctx,
  input,
  engine,
}: VerbArgs<{
  tool: ToolRef;
  arguments: unknown;
  timeoutMs: number;
  parentExecutionId?: string;
}> & { engine: ExecutionEngine }): Promise<ToolCallOutcome> {
  const args = input.arguments ?? {};
  const executionId = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const workflow = await findToolWorkflow(tx, ctx.organizationId, input.tool);
    assertToolArguments(workflow, args);
    const [id] = await prepareExecutions(tx, ctx.organizationId, [
      {
        workflow: presentWorkflow(workflow),
        trigger: 'tool',
        event: null,
        payload: args,
        parentExecutionId: input.parentExecutionId ?? null,
      },
    ]);
    if (!id) throw new Error('insert returned no row');
    return id;
  });
  await engine.start(ctx.organizationId, [executionId]);
  const status = await waitForEnd(ctx, executionId, input.timeoutMs);
  if (!FINISHED.has(status)) {
    return { execution_id: executionId, status, finished: false, result: null, error: null };
  }
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const e = schema.executions;
    const [row] = await tx
      .select({ status: e.status, error: e.error, graph: e.graph })
      .from(e)
      .where(eq(e.id, executionId));
    if (!row) throw notFound('Execution');
    const completed = row.status === 'success' || row.status === 'partial';
    const steps = completed ? await loadPresentedSteps(tx, executionId) : [];
    return {
      execution_id: executionId,
      status: row.status,
      finished: true,
      result: completed ? toolResult(row.graph, steps) : null,
      error:
        row.error ??
        (completed ? null : { message: `The tool's execution ended ${row.status}.`, code: row.status }),
    };
  });
}

/**
 * Polls the execution's status until it ends or `timeoutMs` passes: every replica can answer, with
 * no subscription to keep. Every 10 ms for the first half second (a one-node tool ends in tens of
 * milliseconds, and each poll is one cheap indexed read), then less and less often, up to 200 ms.
 */
async function waitForEnd(ctx: VerbArgs<unknown>['ctx'], executionId: string, timeoutMs: number) {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let pause = 10;
  for (;;) {
    const [row] = await queryInTenant(
      ctx.db,
      ctx.organizationId,
      sql`select status from ${schema.executions} where id = ${executionId}`,
    );
    const status = String(row?.status ?? 'pending');
    if (FINISHED.has(status)) return status;
    const left = deadline - Date.now();
    if (left <= 0) return status;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    if (Date.now() - started > 500) pause = Math.min(Math.ceil(pause * 1.5), 200);
  }
}

/** Thrown for an unknown tool: callers (MCP) answer it differently from a failing one. */
export const isUnknownTool = (error: unknown) =>
  error instanceof AppError && error.code === 'not_found' && error.message === 'Tool not found';
