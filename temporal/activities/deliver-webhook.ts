import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Database } from '@weft/db';
import {
  attemptWebhookDelivery,
  type DeliveryRetryPolicy,
  type OutboundHttpClient,
  type SecretBox,
  settleExhaustedDelivery,
} from '@weft/domain';
import { metrics } from '@weft/telemetry';

/** Activities of the `deliverWebhook` workflow. */
export function createDeliveryActivities(deps: {
  db: Database;
  http: OutboundHttpClient;
  secrets: SecretBox;
}) {
  return {
    /**
     * One attempt of an outbound webhook delivery, recorded on its row. A retryable outcome fails
     * with the exact delay to wait (Retry-After or the backoff), so `next_retry_at` is what happens.
     */
    async sendWebhookDelivery(args: {
      organizationId: string;
      deliveryId: string;
      retry: DeliveryRetryPolicy;
    }) {
      const info = Context.current().info;
      const outcome = await attemptWebhookDelivery(deps, {
        ...args,
        attempt: info.attempt,
        deadlineMs: info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs,
      });
      // One count per attempt: delivered, retry (a retryable answer), failed (final), skipped.
      metrics.webhookDeliveries.inc({ outcome: outcome.kind });
      switch (outcome.kind) {
        case 'delivered':
          return { status: 'succeeded' };
        case 'skipped':
          return { status: outcome.reason };
        case 'retry':
          throw ApplicationFailure.create({
            message: outcome.message,
            type: outcome.code,
            nextRetryDelay: outcome.delayMs,
          });
        case 'failed':
          throw ApplicationFailure.nonRetryable(outcome.message, outcome.code);
      }
    },

    settleWebhookDelivery: (args: { organizationId: string; deliveryId: string }) =>
      settleExhaustedDelivery(deps.db, args),
  };
}
