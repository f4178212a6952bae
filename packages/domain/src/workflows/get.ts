import { queryInTenant, rowsOf, schema } from '@weft/db';
import { sql } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentWorkflow } from './present';

/**
 * One statement, so it runs as a one-round-trip tenancy transaction (queryInTenant), written as
 * SQL rather than through drizzle's select builder, whose per-call cost is a tenth of the request:
 * this is the API's hottest read. The organization condition repeats what RLS enforces (RLS is the
 * second wall, not the only one).
 */
export async function getWorkflow({ ctx, input, siteUrl }: VerbArgs<{ id: string }> & { siteUrl?: string }) {
  if (!isUuid(input.id)) throw notFound('Workflow');
  const t = schema.workflows;
  const raw = await queryInTenant(
    ctx.db,
    ctx.organizationId,
    sql`select * from ${t} where ${t.id} = ${input.id} and ${t.organizationId} = ${ctx.organizationId}`,
  );
  const [row] = rowsOf(t, raw);
  if (!row) throw notFound('Workflow');
  return presentWorkflow(row, siteUrl);
}
