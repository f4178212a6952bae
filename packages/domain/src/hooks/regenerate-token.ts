import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { isUuid } from '../text';
import { presentWorkflow } from '../workflows/present';
import { generateHookToken, hasPublicToken } from './token';

/**
 * POST /workflows/{id}/webhook-token/regenerate: a new hook token; the old URL stops working when
 * this commits. Audit logged without either token (they are credentials).
 */
export async function regenerateWebhookToken({
  ctx,
  input,
  siteUrl,
}: VerbArgs<{ id: string }> & { siteUrl: string }) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select({ triggerType: t.triggerType })
      .from(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Workflow');
    if (!hasPublicToken(existing.triggerType)) {
      throw new AppError('conflict', 'Only a workflow with trigger_type webhook or form has a public token.');
    }
    const [row] = await tx
      .update(t)
      .set({ webhookToken: generateHookToken() })
      .where(eq(t.id, input.id))
      .returning();
    if (!row) throw notFound('Workflow');
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'workflow',
      entityId: row.id,
      oldValues: { webhook_token: 'previous (not logged)' },
      newValues: { webhook_token: 'regenerated (not logged)' },
    });
    return presentWorkflow(row, siteUrl);
  });
}
