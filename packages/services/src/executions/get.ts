import { schema, withTenant } from '@weft/db';
import { and, asc, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound } from '../errors';
import { isUuid } from '../text';
import { presentExecution, presentStep } from './present';

export async function getExecution({
  ctx,
  input,
  temporalUiUrl,
}: VerbArgs<{ id: string }> & { temporalUiUrl?: string }) {
  if (!isUuid(input.id)) throw notFound('Execution');
  const e = schema.executions;
  const s = schema.executionSteps;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Execution');
    const steps = await tx
      .select()
      .from(s)
      .where(eq(s.executionId, row.id))
      .orderBy(asc(s.position), asc(s.iteration));
    return {
      ...presentExecution(row, temporalUiUrl),
      trigger_payload: row.triggerPayload,
      steps: steps.map(presentStep),
    };
  });
}
