import { schema, type Tx } from '@weft/db';
import { asc, eq } from 'drizzle-orm';
import { presentExecution, presentStep } from '../executions/present';
import type { ExecutionProgress } from '../executions/types';
import type { WebhookEvent } from './events';
import { recordWebhookEvent } from './outbox';

const EVENT_BY_STATUS: Partial<Record<ExecutionProgress['status'], WebhookEvent>> = {
  success: 'execution.completed',
  partial: 'execution.partial',
  failed: 'execution.failed',
  waiting: 'execution.waiting',
};

/**
 * What identifies one occurrence of the event: an execution completes or fails once per attempt
 * (a retry is a new attempt), and it enters `waiting` once per paused step.
 */
function dedupKey(event: WebhookEvent, progress: ExecutionProgress): string {
  const base = `${event}:${progress.executionId}:${progress.attempt}`;
  if (event !== 'execution.waiting') return base;
  const pause = progress.steps.find((step) => step.status === 'waiting');
  return pause ? `${base}:${pause.nodeId}:${pause.iteration}` : base;
}

/**
 * The execution object of a delivery: the execution and its steps without outputs, resolved
 * configs or the trigger payload. Those may be large or personal; GET /executions/{id} has them.
 */
async function executionPayload(tx: Tx, executionId: string) {
  const e = schema.executions;
  const s = schema.executionSteps;
  const [execution] = await tx.select().from(e).where(eq(e.id, executionId));
  if (!execution) throw new Error(`execution ${executionId} vanished inside its own transaction`);
  const steps = await tx
    .select()
    .from(s)
    .where(eq(s.executionId, executionId))
    .orderBy(asc(s.position), asc(s.iteration));
  return {
    execution: {
      ...presentExecution(execution),
      steps: steps.map((row) => {
        const { output: _output, resolved_config: _config, ...step } = presentStep(row);
        return step;
      }),
    },
  };
}

/** Records the outbox rows for an execution status just saved; no-op for statuses without an event. */
export function recordExecutionEvent(tx: Tx, progress: ExecutionProgress): Promise<string[]> {
  const event = EVENT_BY_STATUS[progress.status];
  if (!event) return Promise.resolve([]);
  return recordWebhookEvent(tx, progress.organizationId, {
    name: event,
    dedupKey: dedupKey(event, progress),
    data: () => executionPayload(tx, progress.executionId),
  });
}
