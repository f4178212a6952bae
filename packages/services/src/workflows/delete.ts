import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWorkflow } from './present';

export async function deleteWorkflow({ ctx, input }: VerbArgs<{ id: string }>) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .delete(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId)))
      .returning();
    if (!row) throw notFound('Workflow');
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'workflow',
      entityId: row.id,
      oldValues: presentWorkflow(row),
    });
  });
}
