import { ApplicationFailure } from '@temporalio/common';
import {
  AppError,
  type ExecutionProgress,
  loadExecution,
  prepareChildExecution,
  saveExecutionProgress,
} from '@weft/domain';
import { createAgentActivities } from './agent';
import { createApprovalActivities } from './approvals';
import { createCartActivities } from './carts';
import { createDeliveryActivities } from './deliver-webhook';
import type { ActivityDeps } from './deps';
import { publishFromExecution } from './node-run-context';
import { createPollingActivities } from './polling';
import { recordProgressMetrics } from './progress-metrics';
import { createRecordingActivities } from './recordings';
import { createNodeActivities, withHeartbeat } from './run-node';
import { createScheduleActivities } from './schedules';

export { closeCodeSandbox } from '@weft/nodes/runners';
export type { ActivityDeps } from './deps';
export { DEFAULT_OUTPUT_INLINE_LIMIT_BYTES } from './run-node';

/** Activity factory: dependencies come in, activities come out (samples-typescript style). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createAgentActivities(deps),
    ...createApprovalActivities(deps),
    ...createCartActivities(deps),
    ...createDeliveryActivities(deps),
    ...createScheduleActivities(deps),
    ...createPollingActivities(deps),
    ...createNodeActivities(deps),
    ...createRecordingActivities(deps),
    loadExecution: (ref: { executionId: string; organizationId: string }) => loadExecution(deps.db, ref),

    async saveProgress(progress: ExecutionProgress) {
      const saved = await saveExecutionProgress(deps.db, progress, deps.engine);
      recordProgressMetrics(progress, saved);
    },

    /** error.critical (and, in histories before runNode, action.event.publish): an event of the execution's organization. */
    async publishEvent(args: {
      organizationId: string;
      executionId: string;
      event: string;
      payload: Record<string, unknown>;
    }) {
      return withHeartbeat(() => publishFromExecution(deps, args));
    },

    /** action.workflow.execute: records the child execution (same organization only). */
    async prepareChildExecution(args: {
      organizationId: string;
      parentExecutionId: string;
      workflowId: string;
      payload: unknown;
    }) {
      try {
        return await prepareChildExecution(deps.db, args);
      } catch (error) {
        if (error instanceof AppError) throw ApplicationFailure.nonRetryable(error.message, error.code);
        throw error;
      }
    },

    /** Starts recorded executions now (the dispatcher's batches). */
    startExecutions: (args: { organizationId: string; executionIds: string[] }) =>
      deps.engine.startDirect(args.organizationId, args.executionIds),
  };
}

export type Activities = ReturnType<typeof createActivities>;
