import type { ActivityDeps } from './deps';
import { createLegacyNodeActivities } from './legacy-node-activities';
import { runNodeOnStoredOutputs } from './run-on-stored-outputs';
import { type RunNodeArgs, runRegistered } from './run-registered';

export { DEFAULT_OUTPUT_INLINE_LIMIT_BYTES, type RunNodeArgs, withHeartbeat } from './run-registered';

/**
 * Activities that run node types from the registry: one generic entry point, the stored-output
 * path, and the names histories recorded before the generic one.
 */
export function createNodeActivities(deps: ActivityDeps) {
  return {
    /** Any node type that runs in an activity: the runner comes from the registry. */
    runNode: (args: RunNodeArgs) => runRegistered(deps, args),

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
