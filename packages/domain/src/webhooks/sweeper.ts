import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { pruneHookReceipts } from '../hooks/receipts';
import type { DeliveryStarter } from './outbox';

/**
 * The outbox sweeper: deliveries committed more than a minute ago whose workflow never started
 * (the process died between commit and start, or Temporal was unreachable) are started now.
 * Workflow ids are `delivery-<id>`, so starting one that already runs is a no-op.
 * Returns how many deliveries it handed to the engine.
 */
export async function sweepUnstartedDeliveries(db: Database, engine: DeliveryStarter): Promise<number> {
  // Cross-organization by design: a reviewed SECURITY DEFINER function returning ids only.
  const rows = await db.execute<{ delivery_id: string; organization_id: string }>(
    sql`select delivery_id, organization_id from weft_list_unstarted_deliveries('1 minute', 500)`,
  );
  const byOrganization = new Map<string, string[]>();
  for (const row of rows) {
    const ids = byOrganization.get(row.organization_id) ?? [];
    ids.push(row.delivery_id);
    byOrganization.set(row.organization_id, ids);
  }
  await Promise.all(
    [...byOrganization].map(([organizationId, ids]) => engine.startDeliveries(organizationId, ids)),
  );
  return rows.length;
}

/**
 * Runs the sweeper now and then every `intervalMs` (default one minute) until `stop()`.
 * A failed sweep is logged and tried again at the next tick. Each tick also prunes inbound hook
 * receipts past their window (hooks/receipts.ts): the same periodic worker chore, one timer.
 */
export function startDeliverySweeper(options: {
  db: Database;
  engine: DeliveryStarter;
  intervalMs?: number;
  log?: (message: string, error?: unknown) => void;
  /** After each successful sweep, with how many unstarted deliveries it found (the outbox backlog). */
  onSwept?: (count: number) => void;
}): { stop(): void } {
  const log = options.log ?? ((message, error) => console.warn(message, error ?? ''));
  let sweeping = false;
  const sweep = () => {
    // Never two sweeps at once: a slow one simply delays the next.
    if (sweeping) return;
    sweeping = true;
    const deliveries = sweepUnstartedDeliveries(options.db, options.engine)
      .then((count) => {
        options.onSwept?.(count);
        if (count > 0) log(`[webhooks] sweeper started ${count} pending deliveries`);
      })
      .catch((error: unknown) => log('[webhooks] delivery sweep failed', error));
    const receipts = pruneHookReceipts(options.db).catch((error: unknown) =>
      log('[hooks] pruning old hook receipts failed', error),
    );
    void Promise.all([deliveries, receipts]).finally(() => {
      sweeping = false;
    });
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
