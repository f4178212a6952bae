import { createHash } from 'node:crypto';
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

/** What the interpreter sends to run a node's first attempt locally. */
export type LocalRunArgs = RunNodeArgs & {
  /** The execution's attempt: a retry of the execution is another call. */
  executionAttempt?: number;
  /** Stop 28's histories retried the local call itself: its last attempt's failure ended the step. */
  maximumAttempts?: number;
};

/**
 * A local call's key (local-call-results.ts): the Temporal run, the step (node and loop index), the
 * execution's attempt, and a hash of the rendered request. Not the activity's sequence number: a
 * re-run of a lost workflow task may hand those out in another order (parallel loop lanes, a call
 * deferred once and local the next time). A key that differs is a miss, and the call is made
 * again; a key never names another call's answer.
 */
function localCallOf(args: LocalRunArgs): LocalCallRef {
  const run = Context.current().info.workflowExecution?.runId ?? 'no-run';
  const request = createHash('sha256')
    .update(JSON.stringify([args.nodeType, args.typeVersion ?? 1, args.config, args.input ?? null]))
    .digest('base64url')
    .slice(0, 22);
  return {
    organizationId: args.organizationId,
    executionId: args.executionId,
    callKey: `${run}/${args.stepKey}/${args.executionAttempt ?? 1}/${request}`,
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
    runNodeLocally: async (args: LocalRunArgs): Promise<LocalRunResult> => {
      const call = localCallOf(args);
      const recorded = await recordedLocalCall(deps.db, deps.secrets, call);
      if (recorded) return recorded as LocalRunResult;
      const leave = localCalls.tryEnter(args.organizationId);
      if (!leave) return { deferred: true };
      let outcome: LocalRunResult;
      try {
        outcome = { output: await runRegistered(deps, args) };
      } catch (error) {
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
        await recordLocalCall(deps.db, deps.secrets, call, outcome);
      } catch (error) {
        // The call was made: throwing would make it again at once, as a regular activity. Without
        // the record, only a lost workflow task repeats it.
        // Only the message: a driver error also carries the statement's parameters.
        const reason = error instanceof Error ? error.message : String(error);
        Context.current().log.warn('local call answer not recorded', { reason });
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
