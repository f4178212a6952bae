import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverWebhookInput, DeliveryRetryPolicy } from '../shared';

/**
 * Production retry schedule of a delivery: 10 s, 20 s, 40 s, … doubling up to one hour between
 * attempts, for 24 hours after the first attempt (about 30 attempts in all).
 */
export const DELIVERY_RETRY_POLICY: DeliveryRetryPolicy = {
  initialIntervalMs: 10_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60 * 60 * 1000,
};

const { settleWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Delivers one outbound webhook (DESIGN §8): a single activity whose Temporal retries are the
 * delivery's attempts. Each attempt has 10 s; retryable failures (network errors, timeouts, 5xx,
 * 429) come back after the activity's own delay (Retry-After or the backoff above) until 24 h have
 * passed; other 4xx and redirects end it at once. Workflow id `delivery-<delivery id>`.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<{ status: string }> {
  const retry: DeliveryRetryPolicy = { ...DELIVERY_RETRY_POLICY, ...input.retry };
  const { sendWebhookDelivery } = proxyActivities<Activities>({
    startToCloseTimeout: '10 seconds',
    scheduleToCloseTimeout: '24 hours',
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      // No attempt cap: the 24 h schedule-to-close timeout ends the retries.
    },
  });
  try {
    return await sendWebhookDelivery({
      organizationId: input.organizationId,
      deliveryId: input.deliveryId,
      retry,
    });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // Final refusals are recorded by the attempt itself; this settles what it could not see
    // (the last attempt timing out, the 24 h running out).
    await settleWebhookDelivery({ organizationId: input.organizationId, deliveryId: input.deliveryId });
    return { status: 'failed' };
  }
}
