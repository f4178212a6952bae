import { createHash } from 'node:crypto';

/** The last cart event a cart watcher has seen, and the inactivity period in force when it arrived. */
export interface CartActivity {
  event: string;
  payload: Record<string, unknown>;
  /** organization_settings.cart_inactivity_minutes when the event was published. */
  inactivityMinutes: number;
}

export const DEFAULT_CART_INACTIVITY_MINUTES = 60;

/** `cart.*` events start or refresh a cart's timer, except the one the timer itself fires. */
export function refreshesCartTimer(event: string): boolean {
  return event.startsWith('cart.') && event !== 'cart.abandoned';
}

/** An order for the cart ends its timer without firing cart.abandoned. */
export function closesCartTimer(event: string): boolean {
  return event === 'order.created';
}

/**
 * The payload's `cart_id` as text (strings and integers are accepted: stores send either), or null
 * when there is none. Bounded, because it names a durable timer.
 */
export function cartIdOf(payload: Record<string, unknown>): string | null {
  const value = payload.cart_id;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= 255) return value;
  return null;
}

/**
 * Temporal workflow id of a cart's watcher. Cart ids are user input, so the id carries a digest of
 * the cart id (fixed length, no characters that need escaping) scoped by the organization: two
 * organizations with the same cart id get two watchers.
 */
export function cartWatcherWorkflowId(organizationId: string, cartId: string): string {
  const digest = createHash('sha256').update(cartId).digest('hex').slice(0, 32);
  return `cart-${organizationId}-${digest}`;
}
