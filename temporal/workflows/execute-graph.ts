import {
  CancellationScope,
  defineSignal,
  isCancellation,
  log,
  patched,
  proxySinks,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  APPROVAL_SIGNAL,
  type ApprovalSignal,
  EVENT_SIGNAL,
  type EventSignal,
  type ExecutionStatus,
  type LoadedExecution,
  RETRY_SIGNAL,
  type RetrySignal,
  SEARCH_ATTRIBUTES,
  type WeftSinks,
} from '../shared';
import { local } from './graph/activities';
import { walk } from './graph/interpreter';
import { GraphRun, TestRunFailed } from './graph/state';

/** Steps reported before slow nodes, not after each side effect (GraphRun.reportBeforeSlowStep). */
const REPORT_BEFORE_SLOW_STEPS = 'report-before-slow-steps';

export const retrySignal = defineSignal<[RetrySignal]>(RETRY_SIGNAL);
export const eventSignal = defineSignal<[EventSignal]>(EVENT_SIGNAL);
export const approvalSignal = defineSignal<[ApprovalSignal]>(APPROVAL_SIGNAL);

const { metrics } = proxySinks<WeftSinks>();

/**
 * The interpreter: runs one execution of a user's graph (DESIGN §3). A node runs once every source
 * of its incoming edges has settled and at least one of those edges is live (its source ran and
 * fired that handle); otherwise it is skipped. Pure nodes run here, deterministically; side effects
 * run as activities. A node failing with on_failure=abort fails the execution, which then waits
 * (up to 7 days) for a retry signal and resumes at that node with every earlier output intact.
 * The walk is in graph/interpreter.ts; what each node type does is in its folder of @weft/nodes.
 */
export async function executeGraph(args: {
  executionId: string;
  organizationId: string;
  /** The recorded execution, when the starter had it at hand (absent in older histories: replay loads). */
  snapshot?: LoadedExecution;
}): Promise<{ status: ExecutionStatus }> {
  const execution =
    args.snapshot ??
    (await local.loadExecution({ executionId: args.executionId, organizationId: args.organizationId }));
  if (!execution) return { status: 'failed' };
  metrics.executionStarted(execution.trigger);
  // Workflow logs carry Temporal's ids (workflowId, runId) and, here, Weft's execution id.
  log.debug('execution started', { execution_id: execution.executionId, trigger: execution.trigger });
  // Set at start when the starter had the snapshot (one visibility write fewer); else set them now.
  if (workflowInfo().typedSearchAttributes.get(SEARCH_ATTRIBUTES.trigger) === undefined) {
    upsertSearchAttributes({
      [SEARCH_ATTRIBUTES.workflowId.name]: [execution.workflowId],
      [SEARCH_ATTRIBUTES.trigger.name]: [execution.trigger],
    });
  }

  const run = new GraphRun(execution);
  run.reportsBeforeSlowSteps = patched(REPORT_BEFORE_SLOW_STEPS);
  setHandler(retrySignal, (signal) => {
    run.retryRequest = signal;
  });
  setHandler(eventSignal, (signal) => {
    run.receivedEvents.push(signal);
  });
  setHandler(approvalSignal, (signal) => {
    run.approvalOutcomes.set(signal.approval_id, signal);
  });

  try {
    // Graphs with side effects or pauses take a while: show them as running from the start. Purely
    // computed graphs finish in one workflow task and report once, at the end.
    const kinds = [...run.plan.byId.values()].map((n) => run.kindOf(n));
    if (kinds.some((kind) => kind.runsIn === 'activity' || kind.pauses)) await run.report();
    await walk(run, {
      nodes: run.plan.mainNodes,
      entries: run.plan.roots,
      outputs: {},
      fired: {},
      iteration: -1,
      loop: undefined,
    });
    run.status = run.anyFailed ? 'partial' : 'success';
    await run.report({ completedAt: new Date().toISOString() });
    log.debug('execution finished', { execution_id: execution.executionId, status: run.status });
    return { status: run.status };
  } catch (error) {
    // Already reported failed; a test run ends there instead of waiting for a retry.
    if (error instanceof TestRunFailed) return { status: 'failed' };
    if (isCancellation(error)) {
      run.status = 'cancelled';
      await CancellationScope.nonCancellable(() => run.report({ completedAt: new Date().toISOString() }));
    }
    throw error;
  }
}
