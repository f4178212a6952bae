/**
 * The I/O side of node types, for the worker's activities: the runner of a type that runs in an
 * activity, loaded from its folder's `run.ts` when a node of it first runs. Not for workflow code:
 * runners parse configs with zod and do I/O.
 */
import { runsIn } from './define';
import { getNodeType } from './registry';
import type { NodeRunner } from './runner';

/** The runner of this type and version; undefined for an unknown type or one that runs in workflow code. */
export async function loadNodeRunner(type: string, version = 1): Promise<NodeRunner | undefined> {
  const definition = getNodeType(type, version);
  if (!definition || runsIn(definition) !== 'activity') return undefined;
  return definition.runner?.();
}

export {
  callAgentModel,
  callAgentTool,
  type DescribeToolWorkflow,
  listAgentTools,
  schemaError,
} from './ai-agent/activities';
export type * from './ai-agent/contract';
/** Terminates the code node's sandbox threads: call once when the process shuts down. */
export { closeCodeSandbox } from './code/sandbox';
export * from './runner';
export type { AiMessage } from './shared/ai/messages';
