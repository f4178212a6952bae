import { schema, type Tx, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWebhook } from './present';

/** The caller's webhook row, or a 404 (another organization's id looks exactly like a missing one). */
export async function findWebhookRow(tx: Tx, organizationId: string, id: string, forUpdate = false) {
  if (!isUuid(id)) throw notFound('Webhook');
  const w = schema.webhooks;
  const query = tx
    .select()
    .from(w)
    .where(and(eq(w.id, id), eq(w.organizationId, organizationId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw notFound('Webhook');
  return row;
}

export async function getWebhook({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('Webhook');
  const row = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    findWebhookRow(tx, ctx.organizationId, input.id),
  );
  return presentWebhook(row);
}
