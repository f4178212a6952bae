import { findFailedSteps, findRecordedStep } from '@weft/domain';
import type { ActivityDeps } from './deps';
import { DEFAULT_OUTPUT_INLINE_LIMIT_BYTES } from './run-node';

/**
 * The workbench's look-ups (DESIGN §15): a step recorded by another execution, for a test run, a
 * replay or a retry of a partial execution; and the failed steps such a retry runs again.
 */
export function createRecordingActivities(deps: ActivityDeps) {
  return {
    recordedStep: (args: {
      organizationId: string;
      executionId: string;
      sourceExecutionId: string;
      nodeId: string;
      nodeType: string;
      iteration: number;
      inlineLimitBytes?: number;
    }) =>
      findRecordedStep(
        deps.db,
        args,
        args.inlineLimitBytes ?? deps.outputInlineLimitBytes ?? DEFAULT_OUTPUT_INLINE_LIMIT_BYTES,
      ),
    failedSteps: (args: { organizationId: string; executionId: string }) => findFailedSteps(deps.db, args),
  };
}
