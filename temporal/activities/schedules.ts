import type { Database } from '@weft/db';
import {
  type ExecutionEngine,
  publishScheduledEvent,
  readExecutionStatus,
  recordScheduledFire,
} from '@weft/domain';
import { metrics } from '@weft/telemetry';
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
    recordScheduledFire: (args: ScheduledFireInput) => {
      const fire = ScheduledFireInput.parse(args);
      metrics.scheduleLag.observe(Math.max(0, Date.now() - Date.parse(fire.scheduledAt)) / 1000);
      return recordScheduledFire(deps.db, fire);
    },

    /** Fires `scheduled.<workflow_id>` for event-triggered listeners (`scheduled.*`). */
    publishScheduledEvent: (args: ScheduledFireInput) =>
      publishScheduledEvent(deps, ScheduledFireInput.parse(args)),

    readExecutionStatus: (args: z.infer<typeof ExecutionRef>) =>
      readExecutionStatus(deps.db, ExecutionRef.parse(args)),
  };
}
