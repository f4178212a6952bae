import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWorkflow } from './present';

export async function getWorkflow({ ctx, input, siteUrl }: VerbArgs<{ id: string }> & { siteUrl?: string }) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  const rows = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .select()
      .from(t)
      .where(and(eq(t.id, input.id), eq(t.organizationId, ctx.organizationId))),
  );
  const row = rows[0];
  if (!row) throw notFound('Workflow');
  return presentWorkflow(row, siteUrl);
}
