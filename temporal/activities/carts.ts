import type { Database } from '@weft/db';
import { type ExecutionEngine, publishEvent } from '@weft/domain';
import { z } from 'zod';

const PublishCartAbandonedInput = z.object({
  organizationId: z.uuid(),
  cartId: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
});
type PublishCartAbandonedInput = z.infer<typeof PublishCartAbandonedInput>;

/** Activities of the cart watcher (temporal/workflows/cart-watcher.ts). */
export function createCartActivities(deps: { db: Database; engine: ExecutionEngine }) {
  return {
    /** Fires `cart.abandoned` in the cart's organization with the last cart event's payload. */
    async publishCartAbandoned(args: PublishCartAbandonedInput) {
      const input = PublishCartAbandonedInput.parse(args);
      const result = await publishEvent({
        ctx: { db: deps.db, organizationId: input.organizationId, actor: {} },
        input: { event: 'cart.abandoned', payload: input.payload },
        engine: deps.engine,
        trigger: 'event',
      });
      return { execution_ids: result.execution_ids };
    },
  };
}
