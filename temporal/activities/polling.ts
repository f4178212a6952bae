import type { Database } from '@weft/db';
import { type ExecutionEngine, type OutboundHttpClient, pollWorkflow, type SecretBox } from '@weft/domain';
import { z } from 'zod';

const PollInput = z.object({ organizationId: z.uuid(), workflowId: z.uuid() });

/** Activities of a poll (temporal/workflows/poll.ts). */
export function createPollingActivities(deps: {
  db: Database;
  http: OutboundHttpClient;
  engine: ExecutionEngine;
  secrets: SecretBox;
}) {
  return {
    /**
     * One poll. A failing fetch is recorded in poll_states and returned, not thrown, so a bad URL
     * costs one attempt per scheduled poll, never an endless retry; only database errors throw.
     */
    pollWorkflow: (args: z.infer<typeof PollInput>) => pollWorkflow(deps, PollInput.parse(args)),
  };
}
