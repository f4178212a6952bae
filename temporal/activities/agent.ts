import { appendAgentMemory, describeToolWorkflow, loadAgentMemory, toolExecutionResult } from '@weft/domain';
import {
  type AgentModelRequest,
  type AgentToolRequest,
  type AgentToolSource,
  type AiMessage,
  callAgentModel,
  callAgentTool,
  listAgentTools,
} from '@weft/nodes/runners';
import type { ActivityDeps } from './deps';
import { createNodeRunContext } from './node-run-context';
import { toActivityFailure, withHeartbeat } from './run-registered';

/** Which execution and step an agent activity works for. */
export interface AgentStepRef {
  organizationId: string;
  executionId: string;
  nodeId: string;
  stepKey: string;
}

/**
 * action.ai.agent's activities: each model call, tool listing and tool call is one of these, so
 * the loop in workflow code never repeats a completed one. They heartbeat (a dead worker is noticed
 * in seconds) and fail the way node runners do.
 */
export function createAgentActivities(deps: ActivityDeps) {
  const contextFor = (ref: AgentStepRef) => createNodeRunContext(deps, { ...ref, input: {} });
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await withHeartbeat(work);
    } catch (error) {
      throw toActivityFailure(error);
    }
  };
  return {
    agentListTools: (args: AgentStepRef & { sources: AgentToolSource[] }) =>
      guarded(() =>
        listAgentTools(contextFor(args), args.sources, (workflowId) =>
          describeToolWorkflow(deps.db, { organizationId: args.organizationId, workflowId }),
        ),
      ),
    /** A tool workflow's child execution ended: its result for the model. */
    agentToolWorkflowResult: (args: { organizationId: string; executionId: string }) =>
      guarded(() => toolExecutionResult(deps.db, args)),
    agentCallModel: (args: AgentStepRef & { request: AgentModelRequest }) =>
      guarded(() => callAgentModel(contextFor(args), args.request)),
    agentCallTool: (args: AgentStepRef & { request: AgentToolRequest }) =>
      guarded(() => callAgentTool(contextFor(args), args.request)),
    agentLoadMemory: async (args: AgentStepRef & { key: string; window: number }): Promise<AiMessage[][]> =>
      (await loadAgentMemory(deps.db, args)) as AiMessage[][],
    agentSaveMemory: (args: AgentStepRef & { key: string; turn: AiMessage[] }) =>
      appendAgentMemory(deps.db, { ...args, messages: args.turn }),
  };
}
