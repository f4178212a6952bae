import type { ExecutionEngine } from '../executions/execution-engine';
import { isTimedTrigger } from './timed-workflow';

interface SavedWorkflow {
  id: string;
  status: string;
  trigger_type: string;
  trigger_config: Record<string, unknown>;
}

/**
 * After a workflow save has committed, brings its Temporal Schedule in step. A failure here is
 * logged and left to the reconciler (worker start, `weft triggers reconcile`): the workflow is saved,
 * and answering 500 for it because Temporal blinked would make clients retry a write that worked.
 * Only workflows that are or were schedule/polling-triggered touch Temporal at all.
 */
export async function syncTriggersAfterSave(args: {
  engine: ExecutionEngine | undefined;
  organizationId: string;
  /** The trigger type before the save; null for a create. */
  previousTriggerType: string | null;
  workflow: SavedWorkflow;
}): Promise<void> {
  const { engine, workflow, previousTriggerType } = args;
  const wasTimed = previousTriggerType !== null && isTimedTrigger(previousTriggerType);
  if (!engine || (!wasTimed && !isTimedTrigger(workflow.trigger_type))) return;
  try {
    await engine.syncWorkflowTriggers({ ...workflow, organizationId: args.organizationId });
  } catch (error) {
    console.warn(
      `[triggers] could not sync the schedule of workflow ${workflow.id}; the reconciler will repair it:`,
      error instanceof Error ? error.message : error,
    );
  }
}

/** After a workflow delete has committed: removes its schedules (failures left to the reconciler). */
export async function removeTriggersAfterDelete(args: {
  engine: ExecutionEngine | undefined;
  workflow: Pick<SavedWorkflow, 'id' | 'trigger_type'>;
}): Promise<void> {
  if (!args.engine || !isTimedTrigger(args.workflow.trigger_type)) return;
  try {
    await args.engine.removeWorkflowTriggers(args.workflow.id);
  } catch (error) {
    console.warn(
      `[triggers] could not delete the schedule of workflow ${args.workflow.id}; the reconciler will:`,
      error instanceof Error ? error.message : error,
    );
  }
}
