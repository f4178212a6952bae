import { schema, withTenant } from '@weft/db';
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import type { PageRequest } from '../pagination';
import { isUuid } from '../text';
import { findWebhookRow } from './get';
import { presentDelivery } from './present';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface ListDeliveriesInput extends PageRequest {
  webhookId: string;
  status?: DeliveryStatus;
}

/** A webhook's deliveries, newest first, each with its attempts. */
export async function listWebhookDeliveries({ ctx, input }: VerbArgs<ListDeliveriesInput>) {
  if (!isUuid(input.webhookId)) throw notFound('Webhook');
  const d = schema.webhookDeliveries;
  const where: SQL[] = [eq(d.organizationId, ctx.organizationId), eq(d.webhookId, input.webhookId)];
  if (input.status) where.push(eq(d.status, input.status));
  const condition = and(...where);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await findWebhookRow(tx, ctx.organizationId, input.webhookId);
    const rows = await tx
      .select({
        id: d.id,
        organizationId: d.organizationId,
        webhookId: d.webhookId,
        event: d.event,
        status: d.status,
        attemptCount: d.attemptCount,
        attempts: d.attempts,
        lastStatusCode: d.lastStatusCode,
        nextRetryAt: d.nextRetryAt,
        deliveredAt: d.deliveredAt,
        createdAt: d.createdAt,
        updatedAt: d.updatedAt,
        total: sql<number>`count(*) over ()`.mapWith(Number),
      })
      .from(d)
      .where(condition)
      .orderBy(desc(d.createdAt), desc(d.id))
      .limit(input.perPage)
      .offset((input.page - 1) * input.perPage);
    let total = rows[0]?.total;
    if (total === undefined) {
      const [totals] = await tx.select({ total: count() }).from(d).where(condition);
      total = totals?.total ?? 0;
    }
    return { rows: rows.map(presentDelivery), total };
  });
}
