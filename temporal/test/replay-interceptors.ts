/**
 * Workflow interceptor for the replay test (bundled with the workflow code, so: no Node modules).
 *
 * Temporal's own determinism check compares only each command's kind, activity type and sequence
 * number. Every side-effect node is an `httpRequest` (or another shared activity type), so an
 * interpreter that scheduled two ready nodes in another order would replay "fine" while handing
 * each node the other's recorded result. This reports every activity and child workflow the code
 * schedules, with its arguments, to the `replayCheck` sink; the test compares them with the inputs
 * recorded in the history.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ReplayCheckSinks extends Sinks {
  replayCheck: {
    scheduled(kind: 'activity' | 'child', name: string, args: unknown[]): void;
  };
}

const { replayCheck } = proxySinks<ReplayCheckSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        replayCheck.scheduled('activity', input.activityType, input.args);
        return next(input);
      },
      startChildWorkflowExecution(input, next) {
        replayCheck.scheduled('child', input.workflowType, input.options.args ?? []);
        return next(input);
      },
    },
  ],
});
