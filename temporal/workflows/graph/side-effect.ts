import { patched } from '@temporalio/workflow';
import type { GraphNode } from '@weft/graph/runtime';
import { activityTraitsOf, type WorkflowNodeType } from '@weft/nodes/runtime';
import { blocking, sideEffects } from './activities';
import type { GraphRun, LoopScope } from './state';

/** The generic `runNode` activity; histories recorded before it called one activity per node type. */
const GENERIC_NODE_ACTIVITY = 'generic-node-activity';

/** A node type that runs in an activity: its runner is looked up in the registry by the worker. */
export async function runSideEffect(
  run: GraphRun,
  node: GraphNode,
  kind: WorkflowNodeType,
  config: Record<string, unknown>,
  outputs: Record<string, unknown>,
  iteration: number,
  loop: LoopScope,
): Promise<unknown> {
  const { execution } = run;
  const stepKey = run.stepKey(node, iteration);
  const traits = activityTraitsOf(kind);
  const input =
    traits.reads === 'upstream'
      ? { trigger: execution.payload, nodes: outputs, loop: loop ?? null }
      : traits.reads === 'trigger'
        ? { trigger: run.outgoingPayload }
        : undefined;
  if (patched(GENERIC_NODE_ACTIVITY)) {
    const args = {
      organizationId: execution.organizationId,
      executionId: execution.executionId,
      nodeId: node.id,
      nodeType: node.type,
      // Absent for version 1, so activity inputs of nodes saved before versions stay as they were.
      ...(node.type_version !== undefined && node.type_version !== 1
        ? { typeVersion: node.type_version }
        : {}),
      config,
      stepKey,
      ...(input ? { input } : {}),
      ...run.inlineLimit(),
    };
    return (traits.activity === 'blocking' ? blocking : sideEffects).runNode(args);
  }
  return runBeforeGenericActivity(run, node, config, stepKey, input);
}

/** The per-type activity calls of histories recorded before `runNode` (same commands, same order). */
function runBeforeGenericActivity(
  run: GraphRun,
  node: GraphNode,
  config: Record<string, unknown>,
  stepKey: string,
  input: { trigger: unknown; nodes?: unknown; loop?: unknown } | undefined,
): Promise<unknown> {
  const { execution } = run;
  switch (node.type) {
    case 'action.http_request':
      return sideEffects.httpRequest({ config, idempotencyKey: stepKey, ...run.inlineLimit() });
    case 'action.code':
      return blocking.runCode({ config, input, ...run.inlineLimit() });
    case 'action.event.publish':
      return sideEffects.publishEvent({
        organizationId: execution.organizationId,
        executionId: execution.executionId,
        event: String(config.event),
        payload:
          (config.payload as Record<string, unknown> | undefined) ??
          (execution.payload as Record<string, unknown>),
      });
    default:
      return sideEffects.runModuleNode({
        organizationId: execution.organizationId,
        nodeType: node.type,
        config,
        idempotencyKey: stepKey,
      });
  }
}
