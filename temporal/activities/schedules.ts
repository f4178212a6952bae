import type { Database } from '@weft/db';
import {
  type ExecutionEngine,
  publishScheduledEvent,
  readExecutionStatus,
  recordScheduledFire,
} from '@weft/services';
import { z } from 'zod';

const ScheduledFireInput = z.object({
  organizationId: z.uuid(),
  workflowId: z.uuid(),
  scheduledAt: z.iso.datetime(),
});
type ScheduledFireInput = z.infer<typeof ScheduledFireInput>;

const ExecutionRef = z.object({ organizationId: z.uuid(), executionId: z.uuid() });

/** Activities of a schedule fire (temporal/workflows/scheduled-fire.ts). */
export function createScheduleActivities(deps: { db: Database; engine: ExecutionEngine }) {
  return {
    /** Records the fire's execution (idempotent: its id comes from workflow + scheduled time). */
    recordScheduledFire: (args: ScheduledFireInput) =>
      recordScheduledFire(deps.db, ScheduledFireInput.parse(args)),

    /** Fires `scheduled.<workflow_id>` for event-triggered listeners (`scheduled.*`). */
    publishScheduledEvent: (args: ScheduledFireInput) =>
      publishScheduledEvent(deps, ScheduledFireInput.parse(args)),

    readExecutionStatus: (args: z.infer<typeof ExecutionRef>) =>
      readExecutionStatus(deps.db, ExecutionRef.parse(args)),
  };
}
