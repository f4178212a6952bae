import { Context } from '@temporalio/activity';
import type { NodeRunContext } from '@weft/nodes/runners';
import type { RunNodeArgs } from './run-registered';

/** The execution an activity works for, from its Temporal workflow id (`exec-<execution_id>`). */
function current(): { executionId: string } {
  const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
  return { executionId: workflowId.startsWith('exec-') ? workflowId.slice('exec-'.length) : '' };
}

/**
 * The activity names histories recorded before the generic `runNode` call (the workflow takes them
 * on replay, behind `patched('generic-node-activity')`), each running its node through `runNode`'s
 * path. Remove them once no such execution can still be running (7 days after the release that
 * added runNode).
 */
export function createLegacyNodeActivities(runRegistered: (args: RunNodeArgs) => Promise<unknown>) {
  return {
    /** @deprecated histories before runNode: action.http_request. */
    httpRequest: (args: {
      config: Record<string, unknown>;
      idempotencyKey: string;
      inlineLimitBytes?: number;
    }) =>
      runRegistered({
        // These histories never passed the organization to the runner (it ran without one).
        organizationId: '',
        ...current(),
        nodeId: '',
        nodeType: 'action.http_request',
        config: args.config,
        stepKey: args.idempotencyKey,
        inlineLimitBytes: args.inlineLimitBytes,
      }),

    /** @deprecated histories before runNode: action.code. */
    runCode: (args: { config: Record<string, unknown>; input: unknown; inlineLimitBytes?: number }) =>
      runRegistered({
        // These histories never passed the organization to the runner (it ran without one).
        organizationId: '',
        ...current(),
        nodeId: '',
        nodeType: 'action.code',
        config: args.config,
        stepKey: '',
        input: args.input as NodeRunContext['input'],
        inlineLimitBytes: args.inlineLimitBytes,
      }),

    /** @deprecated histories before runNode: e-mail, chat and AI nodes. */
    runModuleNode: (args: {
      organizationId: string;
      nodeType: string;
      config: unknown;
      idempotencyKey: string;
    }) =>
      runRegistered({
        organizationId: args.organizationId,
        ...current(),
        nodeId: '',
        nodeType: args.nodeType,
        config: args.config as Record<string, unknown>,
        stepKey: args.idempotencyKey,
      }),
  };
}
