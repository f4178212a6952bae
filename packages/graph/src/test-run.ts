import type { GraphPlan } from './plan';

/** A test run's bounds (POST /workflows/{id}/test): run from `start_at`, stop after `stop_after`. */
export interface TestRunBounds {
  start_at?: string;
  stop_after?: string;
}

/** Which nodes of a bounded test run do not run: `before` take recorded outputs, `stopped` are not run. */
export interface TestRunScope {
  /**
   * Main nodes upstream of what runs (start_at and the nodes it reaches), not themselves reached:
   * their outputs come from a pin or the source run, never from running them.
   */
  before: Set<string>;
  /**
   * Nodes past stop_after (neither it nor upstream of it, nor in a kept loop's body), and with
   * start_at, the nodes neither reached from it nor upstream of what it reaches (a sibling branch,
   * with its loops' bodies): not run at all.
   */
  stopped: Set<string>;
}

function reach(plan: Pick<GraphPlan, 'incoming' | 'outgoing'>, from: string, up: boolean): Set<string> {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    const edges = (up ? plan.incoming : plan.outgoing).get(id) ?? [];
    for (const e of edges) {
      const next = up ? e.source : e.target;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return seen;
}

/** The nodes a bounded test run does not run (pure: the interpreter computes it in workflow code). */
export function testRunScope(plan: GraphPlan, bounds: TestRunBounds): TestRunScope {
  const before = new Set<string>();
  const stopped = new Set<string>();
  if (bounds.start_at && plan.byId.has(bounds.start_at)) {
    const from = reach(plan, bounds.start_at, false);
    from.add(bounds.start_at);
    // Upstream of any node that runs, so a merge after start_at still gets its other inputs.
    const feeding = new Set<string>();
    for (const id of from) for (const up of reach(plan, id, true)) feeding.add(up);
    for (const id of plan.mainNodes) {
      if (from.has(id)) continue;
      if (feeding.has(id)) before.add(id);
      else {
        stopped.add(id);
        for (const inBody of plan.loopBodies.get(id) ?? []) stopped.add(inBody);
      }
    }
  }
  if (bounds.stop_after && plan.byId.has(bounds.stop_after)) {
    const kept = reach(plan, bounds.stop_after, true);
    kept.add(bounds.stop_after);
    for (const id of [...kept]) for (const inBody of plan.loopBodies.get(id) ?? []) kept.add(inBody);
    for (const id of plan.byId.keys()) if (!kept.has(id)) stopped.add(id);
  }
  return { before, stopped };
}

/**
 * What is wrong with a test run's bounds, by field: a node the graph does not have, one inside a
 * loop body (it runs once per item, so "from here" has no single input), or a stop before the start.
 */
export function checkTestRunBounds(plan: GraphPlan, bounds: TestRunBounds): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const field of ['start_at', 'stop_after'] as const) {
    const id = bounds[field];
    if (id === undefined) continue;
    if (!plan.byId.has(id)) problems[field] = [`This workflow has no step "${id}".`];
    else if (!plan.mainNodes.has(id))
      problems[field] = [`Step "${id}" is inside a loop body; pick the loop step or one outside it.`];
  }
  const { start_at: start, stop_after: stop } = bounds;
  if (start && stop && !problems.start_at && !problems.stop_after && start !== stop) {
    if (!reach(plan, start, false).has(stop))
      problems.stop_after = [`Step "${stop}" does not come after "${start}", so nothing would run.`];
  }
  return problems;
}

/**
 * What a retry of a partial execution runs again (the rest reuses the original's completed steps):
 * - `always`: nodes that run at every iteration they are reached: a failed main node and every node
 *   after it; the loop whose body holds a failed step, and every node after that loop.
 * - `at`: `<node>:<iteration>` keys of body steps that run again at that iteration only: a failed
 *   body step and the body steps after it in the same iteration.
 * Pure, like testRunScope: the interpreter computes it in workflow code.
 */
export interface RetryScope {
  always: Set<string>;
  at: Set<string>;
}

export function retryScope(
  plan: Pick<GraphPlan, 'incoming' | 'outgoing' | 'loopBodies'>,
  failed: readonly { nodeId: string; iteration: number }[],
): RetryScope {
  const always = new Set<string>();
  const at = new Set<string>();
  const runAlways = (id: string) => {
    always.add(id);
    for (const after of reach(plan, id, false)) always.add(after);
  };
  for (const { nodeId, iteration } of failed) {
    const loop = [...plan.loopBodies].find(([, body]) => body.has(nodeId));
    if (!loop) {
      runAlways(nodeId);
      continue;
    }
    const [loopId, body] = loop;
    at.add(`${nodeId}:${iteration}`);
    for (const after of reach(plan, nodeId, false)) {
      if (body.has(after)) at.add(`${after}:${iteration}`);
    }
    // The loop runs again (its body walks every item, reusing the items that completed) and its
    // output changes, so what follows the loop runs again too; its body is not "after" it here.
    always.add(loopId);
    for (const after of reach(plan, loopId, false)) if (!body.has(after)) always.add(after);
  }
  return { always, at };
}
