import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { type LocalCallRef, recordedLocalCall, recordLocalCall } from '@weft/domain';
import type { ActivityDeps } from './deps';
import { createLegacyNodeActivities } from './legacy-node-activities';
import { LocalCallGate } from './local-call-gate';
import { runNodeOnStoredOutputs } from './run-on-stored-outputs';
import { type RunNodeArgs, runRegistered } from './run-registered';

export { DEFAULT_OUTPUT_INLINE_LIMIT_BYTES, type RunNodeArgs, withHeartbeat } from './run-registered';

/**
 * What `runNodeLocally` answers: the node's output, the failure that ended its step, or `deferred`
 * when the worker already runs as many local calls as it allows (local-call-gate.ts).
 */
export type LocalRunResult =
  | { output: unknown }
  | { failed: { message: string; type: string; details?: unknown } }
  | { deferred: true };

/**
 * A local call's key: the Temporal run and the activity's sequence number in it, which a re-run of
 * a lost workflow task repeats (local-call-results.ts).
 */
function localCallOf(args: RunNodeArgs): LocalCallRef {
  const { workflowExecution, activityId } = Context.current().info;
  return {
    organizationId: args.organizationId,
    executionId: args.executionId,
    // A local activity always belongs to a workflow run; the type allows standalone activities.
    callKey: `${workflowExecution?.runId ?? 'no-run'}/${activityId}`,
  };
}

/**
 * Activities that run node types from the registry: one generic entry point, the stored-output
 * path, and the names histories recorded before the generic one.
 */
export function createNodeActivities(deps: ActivityDeps) {
  const localCalls = new LocalCallGate();
  return {
    /** Any node type that runs in an activity: the runner comes from the registry. */
    runNode: (args: RunNodeArgs) => runRegistered(deps, args),

    /**
     * The first attempt of a short call (ActivityNodeTraits.localUpToMs) as a local activity,
     * when the gate has a place for it. Temporal hands a local activity's failure back without its
     * details (a provider's refusal would arrive without them), so a failure that ends the step
     * comes back as a value, which the workflow turns into that failure. A failure worth another
     * attempt is thrown: the workflow then runs the call as a regular activity.
     *
     * The answer is recorded in PostgreSQL before it is returned. Temporal keeps it only once the
     * workflow task that follows completes, and a lost task runs its local calls again: a repeat
     * then answers the recorded value instead of calling out a second time.
     */
    runNodeLocally: async (args: RunNodeArgs & { maximumAttempts?: number }): Promise<LocalRunResult> => {
      const call = localCallOf(args);
      const recorded = (await recordedLocalCall(deps.db, call)) as LocalRunResult | undefined;
      if (recorded) return recorded;
      const leave = localCalls.tryEnter(args.organizationId);
      if (!leave) return { deferred: true };
      let outcome: LocalRunResult;
      try {
        outcome = { output: await runRegistered(deps, args) };
      } catch (error) {
        // Stop 28's histories retried the local call itself: its last attempt's failure ended the step.
        const last =
          args.maximumAttempts !== undefined && Context.current().info.attempt >= args.maximumAttempts;
        if (!(error instanceof ApplicationFailure) || !(error.nonRetryable || last)) throw error;
        // The line the SDK writes for a failed activity (with the failure's details, redacted by
        // the logger), which it does not write for a failure answered as a value.
        Context.current().log.warn('Activity failed', { error });
        outcome = {
          failed: {
            message: error.message,
            type: error.type ?? 'error',
            ...(error.details?.[0] === undefined ? {} : { details: error.details[0] }),
          },
        };
      } finally {
        leave();
      }
      try {
        await recordLocalCall(deps.db, call, outcome);
      } catch (error) {
        // The call was made: throwing would make it again at once, as a regular activity. Without
        // the record, only a lost workflow task repeats it.
        Context.current().log.warn('local call answer not recorded', { error });
      }
      return outcome;
    },

    /**
     * A node that reads a stored (large) output: the references are resolved, the config rendered
     * and, where the node can run here, the node run here, so the large value never enters the
     * workflow. Nodes that must run in the workflow (delay, waits, loop, child workflows) get their
     * rendered config back, which must then be small enough for Temporal.
     */
    runNodeOnStoredOutputs: (args: Parameters<typeof runNodeOnStoredOutputs>[1]) =>
      runNodeOnStoredOutputs(deps, args),

    ...createLegacyNodeActivities((args) => runRegistered(deps, args)),
  };
}
