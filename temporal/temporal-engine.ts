import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { cartWatcherWorkflowId, type ExecutionEngine, type LoadedExecution } from '@weft/domain';
import { removeTriggerSchedules, syncTriggerSchedules } from './schedules';
import {
  APPROVAL_SIGNAL,
  CART_ACTIVITY_SIGNAL,
  CART_CLOSED_SIGNAL,
  type DeliverWebhookInput,
  deliveryWorkflowId,
  EVENT_SIGNAL,
  executionWorkflowId,
  RETRY_SIGNAL,
  SEARCH_ATTRIBUTES,
} from './shared';

/** A recorded execution up to this size (JSON characters) is handed to its workflow at start. */
const SNAPSHOT_IN_START_LIMIT = 64 * 1024;

/** Above this many executions, one dispatcher workflow starts them, so the caller waits for one start. */
const DIRECT_START_LIMIT = 16;

export interface TemporalEngine extends ExecutionEngine {
  /** Starts each execution's workflow now, without a dispatcher (the dispatcher's own batches). */
  startDirect(organizationId: string, executionIds: string[]): Promise<void>;
}

/** The execution engine on Temporal: the implementation of @weft/domain' ExecutionEngine. */
export function createTemporalEngine(deps: {
  client: Client;
  taskQueue: string;
  /** Overrides of the webhook delivery retry policy (tests use short intervals; production: none). */
  deliveryRetry?: DeliverWebhookInput['retry'];
  /**
   * Ask the server to hand each execution's first workflow task straight back to a worker in this
   * process (eager workflow start): no trip through matching and no task-queue write. Only valid when
   * `client` runs on the NativeConnection of a worker polling `taskQueue` in this process; when that
   * worker has no free slot, the server queues the task as usual.
   */
  eagerStart?: boolean;
}): TemporalEngine {
  const { client, taskQueue } = deps;
  const eager = deps.eagerStart ? { requestEagerStart: true } : {};

  const startOne = async (organizationId: string, executionId: string, snapshot?: LoadedExecution) => {
    try {
      await client.workflow.start('executeGraph', {
        workflowId: executionWorkflowId(executionId),
        taskQueue,
        args: [snapshot ? { executionId, organizationId, snapshot } : { executionId, organizationId }],
        ...eager,
        // Temporal dispatches backlogged tasks fairly across fairness keys: one organization's flood
        // cannot starve another's executions (activities inherit the key from their workflow).
        priority: { fairnessKey: organizationId },
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.organizationId, value: organizationId },
          ...(snapshot
            ? [
                { key: SEARCH_ATTRIBUTES.workflowId, value: snapshot.workflowId },
                { key: SEARCH_ATTRIBUTES.trigger, value: snapshot.trigger },
              ]
            : []),
        ]),
      });
    } catch (error) {
      // Starting is idempotent: a retry of a start that already happened is fine.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };

  return {
    async startDirect(organizationId, executionIds) {
      await Promise.all(executionIds.map((id) => startOne(organizationId, id)));
    },

    async start(organizationId, executionIds, snapshots = []) {
      if (executionIds.length === 0) return;
      if (executionIds.length <= DIRECT_START_LIMIT) {
        // Only small snapshots ride along: the start input must stay far below Temporal's 2 MB.
        const snapshotOf = new Map(
          snapshots
            .filter((s) => JSON.stringify(s).length <= SNAPSHOT_IN_START_LIMIT)
            .map((s) => [s.executionId, s]),
        );
        await Promise.all(executionIds.map((id) => startOne(organizationId, id, snapshotOf.get(id))));
        return;
      }
      try {
        await client.workflow.start('dispatchExecutions', {
          workflowId: `dispatch-${executionIds[0]}`,
          taskQueue,
          args: [{ organizationId, executionIds }],
          priority: { fairnessKey: organizationId },
          typedSearchAttributes: new TypedSearchAttributes([
            { key: SEARCH_ATTRIBUTES.organizationId, value: organizationId },
          ]),
        });
      } catch (error) {
        // A batch with the same first execution was dispatched already (two polls restarting the same
        // pending items): start these one by one, which is idempotent, so none is left behind.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        await Promise.all(executionIds.map((id) => startOne(organizationId, id)));
      }
    },

    async retry(executionId, signal) {
      try {
        await client.workflow.getHandle(executionWorkflowId(executionId)).signal(RETRY_SIGNAL, signal);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    async cancel(executionId) {
      try {
        await client.workflow.getHandle(executionWorkflowId(executionId)).cancel();
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },

    async touchCart(organizationId, cartId, activity) {
      // Signal-with-start: one atomic call starts the cart's watcher or refreshes the running one.
      await client.workflow.signalWithStart('cartWatcher', {
        workflowId: cartWatcherWorkflowId(organizationId, cartId),
        taskQueue,
        args: [{ organizationId, cartId }],
        signal: CART_ACTIVITY_SIGNAL,
        signalArgs: [activity],
        priority: { fairnessKey: organizationId },
        typedSearchAttributes: new TypedSearchAttributes([
          { key: SEARCH_ATTRIBUTES.organizationId, value: organizationId },
        ]),
      });
    },

    async startDeliveries(organizationId, deliveryIds) {
      await Promise.all(
        deliveryIds.map(async (deliveryId) => {
          const input: DeliverWebhookInput = { organizationId, deliveryId, retry: deps.deliveryRetry };
          try {
            await client.workflow.start('deliverWebhook', {
              workflowId: deliveryWorkflowId(deliveryId),
              taskQueue,
              args: [input],
              // One delivery, one workflow ever: a sweep after it finished must not send it again.
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              priority: { fairnessKey: organizationId },
              typedSearchAttributes: new TypedSearchAttributes([
                { key: SEARCH_ATTRIBUTES.organizationId, value: organizationId },
              ]),
            });
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          }
        }),
      );
    },

    syncWorkflowTriggers: (workflow) => syncTriggerSchedules(client, taskQueue, workflow),

    removeWorkflowTriggers: (workflowId) => removeTriggerSchedules(client, workflowId),

    async closeCart(organizationId, cartId) {
      try {
        await client.workflow
          .getHandle(cartWatcherWorkflowId(organizationId, cartId))
          .signal(CART_CLOSED_SIGNAL);
      } catch (error) {
        // No watcher (never started, already fired or closed): nothing to stop.
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },

    async deliverApproval(executionId, outcome) {
      try {
        await client.workflow.getHandle(executionWorkflowId(executionId)).signal(APPROVAL_SIGNAL, outcome);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },

    async deliverEvent(executionIds, event, payload) {
      await Promise.all(
        executionIds.map(async (executionId) => {
          try {
            await client.workflow
              .getHandle(executionWorkflowId(executionId))
              .signal(EVENT_SIGNAL, { event, payload });
          } catch (error) {
            if (!(error instanceof WorkflowNotFoundError)) throw error;
          }
        }),
      );
    },
  };
}
