import {
  ApplicationFailure,
  CancellationScope,
  condition,
  defineSignal,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  containsStoredOutput,
  type ExpressionScope,
  type GraphEdge,
  type GraphNode,
  renderValue,
} from '@weft/graph/runtime';
import {
  delayMs,
  durationToMs,
  type RenderedConditionConfig,
  type RenderedSwitchConfig,
  type RenderedTransformConfig,
  runCondition,
  runSwitch,
  runsInActivity,
  runTransform,
} from '@weft/nodes/runtime';
import type { Activities } from '../activities';
import {
  EVENT_SIGNAL,
  type EventSignal,
  type ExecutionStatus,
  type LoadedExecution,
  RETRY_SIGNAL,
  type RetrySignal,
  SEARCH_ATTRIBUTES,
  type StepError,
  type StepRecord,
} from '../shared';

const { loadExecution, saveProgress } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 ms', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

const SIDE_EFFECT_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 3,
} as const;

/**
 * Side effects: explicit timeouts, exponential retries; failures the node itself reports are final.
 * They heartbeat, so a crashed worker's activities are retried elsewhere after 10 s, not 5 minutes.
 */
const sideEffects = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: SIDE_EFFECT_RETRY,
});

/** The code sandbox blocks its thread while user code runs (up to 30 s), so it cannot heartbeat. */
const codeRunner = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: SIDE_EFFECT_RETRY,
});

export const retrySignal = defineSignal<[RetrySignal]>(RETRY_SIGNAL);
export const eventSignal = defineSignal<[EventSignal]>(EVENT_SIGNAL);

/** History size after which activity outputs always go to PostgreSQL (Temporal's limit is 50 MB). */
const HISTORY_INLINE_BUDGET_BYTES = 10 * 1024 * 1024;

/** How long a failed execution stays resumable (DESIGN §12.5: every execution has a deadline). */
const EXECUTION_DEADLINE_MS = 7 * 24 * 3_600_000;

interface RenderedLoopConfig {
  items: unknown;
  mode: 'sequential' | 'parallel';
  concurrency: number;
  max_items: number;
}

interface NodeResult {
  output: unknown;
  /** Which output handle fires; undefined = the node's only output. */
  handle?: string;
}

class StepFailure extends Error {
  constructor(
    readonly error: StepError,
    readonly resolvedConfig: unknown,
  ) {
    super(error.message);
  }
}

function stepErrorOf(error: unknown): StepError {
  if (error instanceof ApplicationFailure) return { message: error.message, code: error.type ?? 'error' };
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure) return { message: cause.message, code: cause.type ?? 'error' };
  return { message: error instanceof Error ? error.message : String(error), code: 'error' };
}

/**
 * The interpreter: runs one execution of a user's graph (DESIGN §3). A node runs once every source
 * of its incoming edges has settled and at least one of those edges is live (its source ran and
 * fired that handle); otherwise it is skipped. Pure nodes run here, deterministically; side effects
 * run as activities. A node failing with on_failure=abort fails the execution, which then waits
 * (up to 7 days) for a retry signal and resumes at that node with every earlier output intact.
 */
export async function executeGraph(args: {
  executionId: string;
  organizationId: string;
  /** The recorded execution, when the starter had it at hand (absent in older histories: replay loads). */
  snapshot?: LoadedExecution;
}): Promise<{ status: ExecutionStatus }> {
  const loaded =
    args.snapshot ??
    (await loadExecution({ executionId: args.executionId, organizationId: args.organizationId }));
  if (!loaded) return { status: 'failed' };
  const execution = loaded;
  // Set at start when the starter had the snapshot (one visibility write fewer); else set them now.
  if (workflowInfo().typedSearchAttributes.get(SEARCH_ATTRIBUTES.trigger) === undefined) {
    upsertSearchAttributes({
      [SEARCH_ATTRIBUTES.workflowId.name]: [execution.workflowId],
      [SEARCH_ATTRIBUTES.trigger.name]: [execution.trigger],
    });
  }

  const nodes = execution.graph.nodes as GraphNode[];
  const edges = execution.graph.edges as GraphEdge[];
  const timezone = String((execution.graph.trigger_config as { timezone?: unknown }).timezone ?? 'UTC');
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const incoming = new Map<string, GraphEdge[]>(nodes.map((n) => [n.id, []]));
  const outgoing = new Map<string, GraphEdge[]>(nodes.map((n) => [n.id, []]));
  for (const edge of edges) {
    incoming.get(edge.target)?.push(edge);
    outgoing.get(edge.source)?.push(edge);
  }

  let attempt = execution.attempt;
  let status: ExecutionStatus = 'running';
  let anyFailed = false;
  let position = 0;
  const unreported = new Map<string, StepRecord>();
  const record = (step: StepRecord) => unreported.set(`${step.nodeId}#${step.iteration}`, step);
  const report = async (extra: { error?: StepError | null; completedAt?: string } = {}) => {
    const steps = [...unreported.values()];
    unreported.clear();
    // Temporal refuses payloads over 2 MB: long loops report their steps in bounded chunks. Only the
    // last chunk carries the new status, so nobody sees a finished execution with steps still missing.
    const chunks = chunkSteps(steps);
    for (const [i, chunk] of chunks.entries()) {
      const last = i === chunks.length - 1;
      await saveProgress({
        executionId: execution.executionId,
        organizationId: execution.organizationId,
        status: last ? status : 'running',
        attempt,
        steps: chunk,
        ...(last ? extra : {}),
      });
    }
  };

  let retryRequest: RetrySignal | undefined;
  setHandler(retrySignal, (signal) => {
    retryRequest = signal;
  });
  const receivedEvents: EventSignal[] = [];
  setHandler(eventSignal, (signal) => {
    receivedEvents.push(signal);
  });

  // Nodes on the `each` side of a loop belong to that loop's body, not to the main walk.
  const loopBodies = new Map<string, Set<string>>();
  for (const node of nodes) {
    if (node.type !== 'action.loop') continue;
    const body = new Set<string>();
    const stack = (outgoing.get(node.id) ?? [])
      .filter((e) => e.source_handle === 'each')
      .map((e) => e.target);
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (body.has(id)) continue;
      body.add(id);
      for (const e of outgoing.get(id) ?? []) stack.push(e.target);
    }
    loopBodies.set(node.id, body);
  }
  const inSomeBody = new Set([...loopBodies.values()].flatMap((b) => [...b]));

  const scopeFor = (outputs: Record<string, unknown>, loop?: ExpressionScope['loop']): ExpressionScope => ({
    trigger: execution.payload,
    nodes: outputs,
    loop,
    execution: {
      id: execution.executionId,
      workflow_id: execution.workflowId,
      started_at: execution.startedAt,
    },
  });

  // Nodes whose output holds a reference to a stored (large) output; see @weft/graph stored-output.
  const nodesWithStoredOutputs = new Set<string>();
  /** Whether the node's config names a node with a stored output, or its loop item is one. */
  const readsStoredOutput = (
    node: GraphNode,
    templated: Record<string, unknown>,
    loop: ExpressionScope['loop'],
  ) => {
    if (node.type === 'action.merge' || node.type === 'action.code') return false; // they pass references on
    if (loop && containsStoredOutput(loop.item)) return true;
    if (nodesWithStoredOutputs.size === 0) return false;
    const text = JSON.stringify(templated);
    return [...nodesWithStoredOutputs].some((id) => text.includes(id));
  };
  /**
   * Once the history passes its budget, every further activity output goes to PostgreSQL whatever
   * its size, so thousands of mid-sized outputs cannot reach Temporal's 50 MB history limit. (The
   * field is absent below the budget, which keeps earlier histories' activity inputs unchanged.)
   */
  const inlineLimit = (): { inlineLimitBytes?: number } =>
    workflowInfo().historySize > HISTORY_INLINE_BUDGET_BYTES ? { inlineLimitBytes: 0 } : {};

  /** Runs one node: interpolate its config, then evaluate or call its activity. */
  async function runNode(
    node: GraphNode,
    outputs: Record<string, unknown>,
    liveInputs: string[],
    iteration: number,
    loop: ExpressionScope['loop'],
  ): Promise<NodeResult & { resolvedConfig: unknown }> {
    const scope = scopeFor(outputs, loop);
    // The saved config was validated at save time; rendering only replaces string leaves, so its shape
    // holds and values may now be of any type. The code node's source is never rendered: data reaches
    // user code as `input`, never pasted into it.
    const { code: source, ...templated } = node.config;
    const stepKey = `${execution.executionId}:${node.id}${iteration >= 0 ? `:${iteration}` : ''}`;
    let config = templated;
    try {
      if (readsStoredOutput(node, templated, loop)) {
        // Large outputs live in PostgreSQL: an activity resolves, renders and (if it can) runs the node.
        const remote = await sideEffects.runNodeOnStoredOutputs({
          organizationId: execution.organizationId,
          executionId: execution.executionId,
          nodeType: node.type,
          config: templated,
          scope,
          now: Date.now(),
          timezone,
          idempotencyKey: stepKey,
          ...inlineLimit(),
        });
        if (!remote.rendered) {
          return { output: remote.output, handle: remote.handle, resolvedConfig: remote.resolvedConfig };
        }
        config = remote.rendered;
      } else {
        config = renderValue(templated, scope, { now: new Date(), timezone }) as Record<string, unknown>;
      }
      if (node.type === 'action.code') config.code = source;
      switch (node.type) {
        case 'action.transform':
          return {
            output: runTransform(config as unknown as RenderedTransformConfig),
            resolvedConfig: config,
          };
        case 'action.condition':
          return { ...runCondition(config as unknown as RenderedConditionConfig), resolvedConfig: config };
        case 'action.switch':
          return { ...runSwitch(config as unknown as RenderedSwitchConfig), resolvedConfig: config };
        case 'action.merge':
          return {
            output: Object.fromEntries(liveInputs.map((id) => [id, outputs[id] ?? null])),
            resolvedConfig: config,
          };
        case 'action.delay': {
          const ms = delayMs(config as { duration?: string; until?: unknown }, Date.now());
          await waitWithStatus(node, iteration, config, () => sleep(ms));
          return { output: { resumed_at: new Date().toISOString() }, resolvedConfig: config };
        }
        case 'action.wait_for_event': {
          const wait = config as unknown as {
            event: string;
            match?: { field: string; equals: unknown };
            timeout: string;
          };
          const matches = (e: EventSignal) =>
            e.event === wait.event &&
            (!wait.match || String(readField(e.payload, wait.match.field)) === String(wait.match.equals));
          // The waiting step is saved before the pause; publishers find it there and signal this run.
          // Signals are buffered, so an event arriving between the save and the wait is not lost.
          let received: EventSignal | undefined;
          await waitWithStatus(node, iteration, config, async () => {
            await condition(() => {
              received = receivedEvents.find(matches);
              return received !== undefined;
            }, durationToMs(wait.timeout));
          });
          return received
            ? {
                output: { timed_out: false, event: received.payload },
                handle: 'received',
                resolvedConfig: config,
              }
            : { output: { timed_out: true, event: null }, handle: 'timeout', resolvedConfig: config };
        }
        case 'action.loop':
          return {
            ...(await runLoop(node, config as unknown as RenderedLoopConfig, outputs)),
            resolvedConfig: config,
          };
        case 'action.workflow.execute': {
          const child = config as unknown as { workflow_id: string; input?: unknown; wait: boolean };
          const childId = await sideEffects.prepareChildExecution({
            organizationId: execution.organizationId,
            parentExecutionId: execution.executionId,
            workflowId: child.workflow_id,
            payload: child.input ?? execution.payload,
          });
          const childArgs = { executionId: childId, organizationId: execution.organizationId };
          if (!child.wait) {
            await sideEffects.startExecutions({
              organizationId: execution.organizationId,
              executionIds: [childId],
            });
            return { output: { execution_id: childId, status: 'pending' }, resolvedConfig: config };
          }
          const result = await executeChild(executeGraph, {
            workflowId: `exec-${childId}`,
            args: [childArgs],
            parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          });
          return { output: { execution_id: childId, status: result.status }, resolvedConfig: config };
        }
        case 'action.http_request':
          return {
            output: await sideEffects.httpRequest({ config, idempotencyKey: stepKey, ...inlineLimit() }),
            resolvedConfig: config,
          };
        case 'action.code':
          return {
            output: await codeRunner.runCode({
              config,
              input: { trigger: execution.payload, nodes: outputs, loop: loop ?? null },
              ...inlineLimit(),
            }),
            resolvedConfig: config,
          };
        case 'action.event.publish':
          return {
            output: await sideEffects.publishEvent({
              organizationId: execution.organizationId,
              executionId: execution.executionId,
              event: String(config.event),
              payload:
                (config.payload as Record<string, unknown> | undefined) ??
                (execution.payload as Record<string, unknown>),
            }),
            resolvedConfig: config,
          };
        default:
          if (runsInActivity(node.type)) {
            return {
              output: await sideEffects.runModuleNode({
                organizationId: execution.organizationId,
                nodeType: node.type,
                config,
                idempotencyKey: stepKey,
              }),
              resolvedConfig: config,
            };
          }
          throw ApplicationFailure.nonRetryable(`Unknown node type ${node.type}`, 'unknown_node_type');
      }
    } catch (error) {
      if (isCancellation(error)) throw error;
      throw new StepFailure(stepErrorOf(error), config);
    }
  }

  /** Reports the execution as waiting around a durable pause, then as running again. */
  async function waitWithStatus(
    node: GraphNode,
    iteration: number,
    config: unknown,
    pause: () => Promise<void>,
  ) {
    status = 'waiting';
    record({
      nodeId: node.id,
      nodeType: node.type,
      iteration,
      position: position,
      status: 'waiting',
      attempt,
      resolvedConfig: config,
      startedAt: new Date().toISOString(),
    });
    await report();
    await pause();
    status = 'running';
  }

  async function runLoop(
    node: GraphNode,
    config: RenderedLoopConfig,
    outputs: Record<string, unknown>,
  ): Promise<NodeResult> {
    const items = config.items;
    if (!Array.isArray(items))
      throw ApplicationFailure.nonRetryable('Loop items must be an array', 'loop_items');
    if (items.length > config.max_items) {
      throw ApplicationFailure.nonRetryable(
        `Loop has ${items.length} items, above max_items`,
        'loop_too_large',
      );
    }
    const body = loopBodies.get(node.id) ?? new Set<string>();
    const entries = (outgoing.get(node.id) ?? [])
      .filter((e) => e.source_handle === 'each')
      .map((e) => e.target);
    const results: unknown[] = new Array(items.length);
    const runOne = async (index: number) => {
      const iterationOutputs: Record<string, unknown> = { ...outputs };
      const loop = { item: items[index], index, count: items.length };
      const last = await walk(body, iterationOutputs, { [node.id]: 'each' }, new Set(entries), index, loop);
      results[index] = last;
      // Thousands of purely computed iterations in one workflow activation pile up async contexts
      // until Node aborts ("async hook stack has become corrupted", sdk-typescript#939). A 1 ms timer
      // every 200 iterations ends the activation and starts a fresh one.
      if (index % LOOP_YIELD_EVERY === LOOP_YIELD_EVERY - 1) await sleep(1);
    };
    if (config.mode === 'parallel') {
      let next = 0;
      const lanes = Array.from({ length: Math.min(config.concurrency, items.length) }, async () => {
        while (next < items.length) await runOne(next++);
      });
      await Promise.all(lanes);
    } else {
      for (let i = 0; i < items.length; i++) await runOne(i);
    }
    return { output: { count: items.length, results }, handle: 'done' };
  }

  /**
   * Walks a set of nodes until each one ran or was skipped. `fired` says which handle each settled
   * node fired (a loop's `each` when walking its body); returns the output of the last node run.
   */
  async function walk(
    scopeNodes: Set<string>,
    outputs: Record<string, unknown>,
    fired: Record<string, string | undefined>,
    entryNodes: Set<string>,
    iteration: number,
    loop: ExpressionScope['loop'],
  ): Promise<unknown> {
    const settled = new Set<string>(Object.keys(fired));
    const ran = new Set<string>(Object.keys(fired));
    let lastOutput: unknown = null;
    for (;;) {
      const ready = [...scopeNodes].filter(
        (id) =>
          !settled.has(id) &&
          (incoming.get(id) ?? []).every(
            (e) => settled.has(e.source) || (!scopeNodes.has(e.source) && !(e.source in fired)),
          ),
      );
      if (ready.length === 0) return lastOutput;
      await Promise.all(
        ready.map(async (id) => {
          const node = byId.get(id) as GraphNode;
          const liveEdges = (incoming.get(id) ?? []).filter(
            (e) => ran.has(e.source) && (e.source_handle ?? undefined) === (fired[e.source] ?? undefined),
          );
          const isEntry = entryNodes.has(id);
          if (!isEntry && liveEdges.length === 0) {
            settled.add(id);
            record({
              nodeId: id,
              nodeType: node.type,
              iteration,
              position: position++,
              status: 'skipped',
              attempt,
            });
            return;
          }
          const result = await runWithRecovery(
            node,
            outputs,
            liveEdges.map((e) => e.source),
            iteration,
            loop,
          );
          outputs[id] = result.output;
          if (containsStoredOutput(result.output)) nodesWithStoredOutputs.add(id);
          fired[id] = result.handle;
          lastOutput = result.output;
          ran.add(id);
          settled.add(id);
        }),
      );
    }
  }

  /** Runs a node and records its step; on failure applies on_failure, including park-and-retry. */
  async function runWithRecovery(
    node: GraphNode,
    outputs: Record<string, unknown>,
    liveInputs: string[],
    iteration: number,
    loop: ExpressionScope['loop'],
  ): Promise<NodeResult> {
    const stepPosition = position++;
    for (;;) {
      const startedAt = Date.now();
      try {
        const result = await runNode(node, outputs, liveInputs, iteration, loop);
        record({
          nodeId: node.id,
          nodeType: node.type,
          iteration,
          position: stepPosition,
          status: 'completed',
          attempt,
          output: result.output,
          resolvedConfig: result.resolvedConfig,
          error: null,
          startedAt: new Date(startedAt).toISOString(),
          completedAt: new Date().toISOString(),
          durationMs: Date.now() - startedAt,
        });
        if (runsInActivity(node.type)) await report();
        return { output: result.output, handle: result.handle };
      } catch (error) {
        if (!(error instanceof StepFailure)) throw error;
        record({
          nodeId: node.id,
          nodeType: node.type,
          iteration,
          position: stepPosition,
          status: 'failed',
          attempt,
          output: null,
          resolvedConfig: error.resolvedConfig,
          error: error.error,
          startedAt: new Date(startedAt).toISOString(),
          completedAt: new Date().toISOString(),
          durationMs: Date.now() - startedAt,
        });
        if (node.on_failure !== 'abort') {
          anyFailed = true;
          return { output: { error: error.error } };
        }
        // Abort: the execution is failed now, and stays resumable here until the deadline. Forget any
        // earlier retry request before the failure becomes visible: a retry sent as soon as the record
        // says `failed` must not be cleared while error.critical is being published.
        retryRequest = undefined;
        status = 'failed';
        await report({ error: error.error, completedAt: new Date().toISOString() });
        if (execution.event !== 'error.critical') {
          await sideEffects.publishEvent({
            organizationId: execution.organizationId,
            executionId: execution.executionId,
            event: 'error.critical',
            payload: {
              execution_id: execution.executionId,
              workflow_id: execution.workflowId,
              workflow_name: execution.workflowName,
              node_id: node.id,
              error: error.error,
            },
          });
        }
        const resumed = await condition(() => retryRequest !== undefined, EXECUTION_DEADLINE_MS);
        if (!resumed) {
          // Past the deadline the record says so, and a retry is refused without touching Temporal.
          await report({
            error: { message: 'The 7-day retry window of this execution has passed.', code: 'retry_expired' },
            completedAt: new Date().toISOString(),
          });
          throw ApplicationFailure.nonRetryable('Execution deadline passed', 'deadline');
        }
        const request = retryRequest as RetrySignal | undefined;
        attempt = request?.attempt ?? attempt + 1;
        if (request?.nodeConfig) node = { ...node, config: request.nodeConfig };
        status = 'running';
      }
    }
  }

  try {
    // Graphs with side effects or pauses take a while: show them as running from the start. Purely
    // computed graphs finish in one workflow task and report once, at the end.
    if (
      nodes.some(
        (n) => runsInActivity(n.type) || n.type === 'action.delay' || n.type === 'action.wait_for_event',
      )
    ) {
      await report();
    }
    const mainNodes = new Set(nodes.filter((n) => !inSomeBody.has(n.id)).map((n) => n.id));
    const roots = new Set([...mainNodes].filter((id) => (incoming.get(id) ?? []).length === 0));
    await walk(mainNodes, {}, {}, roots, -1, undefined);
    status = anyFailed ? 'partial' : 'success';
    await report({ completedAt: new Date().toISOString() });
    return { status };
  } catch (error) {
    if (isCancellation(error)) {
      status = 'cancelled';
      await CancellationScope.nonCancellable(() => report({ completedAt: new Date().toISOString() }));
    }
    throw error;
  }
}

/** An own-property dotted path of an event payload (prototype keys never followed). */
function readField(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (key === '__proto__' || key === 'prototype' || key === 'constructor') return undefined;
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const LOOP_YIELD_EVERY = 200;
const REPORT_MAX_STEPS = 500;
const REPORT_MAX_BYTES = 512 * 1024;

/** Splits step records into reports of at most 500 steps and about 512 KiB each (at least one chunk). */
function chunkSteps(steps: StepRecord[]): StepRecord[][] {
  const chunks: StepRecord[][] = [[]];
  let bytes = 0;
  for (const step of steps) {
    const size = JSON.stringify(step).length;
    const current = chunks[chunks.length - 1] as StepRecord[];
    if (current.length > 0 && (current.length >= REPORT_MAX_STEPS || bytes + size > REPORT_MAX_BYTES)) {
      chunks.push([step]);
      bytes = size;
    } else {
      current.push(step);
      bytes += size;
    }
  }
  return chunks;
}
