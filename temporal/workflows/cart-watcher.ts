import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { CART_ACTIVITY_SIGNAL, CART_CLOSED_SIGNAL, type CartActivitySignal } from '../shared';

export const cartActivitySignal = defineSignal<[CartActivitySignal]>(CART_ACTIVITY_SIGNAL);
export const cartClosedSignal = defineSignal(CART_CLOSED_SIGNAL);

const { publishCartAbandoned } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Cart events handled by one run before it continues as new, so a busy cart's history stays small. */
export const CART_EVENTS_PER_RUN = 500;

export interface CartWatcherArgs {
  organizationId: string;
  cartId: string;
  /** The last cart event carried over by continue-as-new (absent on a first start: a signal brings it). */
  last?: CartActivitySignal;
}

/**
 * One per cart (started or refreshed by signal-with-start on every `cart.*` event). It waits for the
 * inactivity period after the LAST cart event, measured with a durable timer; when it passes quietly,
 * `cart.abandoned` is published with that event's payload and the watcher ends. `order.created` for
 * the cart (the closed signal) ends it without firing. The period travels with each event, so a
 * changed setting applies from the cart's next event on.
 */
export async function cartWatcher(args: CartWatcherArgs): Promise<void> {
  let last = args.last;
  let closed = false;
  let eventsSeen = 0;
  setHandler(cartActivitySignal, (activity) => {
    last = activity;
    eventsSeen++;
  });
  setHandler(cartClosedSignal, () => {
    closed = true;
  });

  for (;;) {
    await condition(() => last !== undefined || closed);
    if (closed || last === undefined) return;
    const current: CartActivitySignal = last;
    const before = eventsSeen;
    const refreshed = await condition(
      () => closed || eventsSeen !== before,
      current.inactivityMinutes * 60_000,
    );
    if (closed) return;
    if (!refreshed) {
      await publishCartAbandoned({
        organizationId: args.organizationId,
        cartId: args.cartId,
        payload: current.payload,
      });
      // A cart event that came while publishing starts a new wait; otherwise this cart is done.
      if (eventsSeen === before || closed) return;
    }
    if (eventsSeen >= CART_EVENTS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof cartWatcher>({
        organizationId: args.organizationId,
        cartId: args.cartId,
        last,
      });
    }
  }
}
