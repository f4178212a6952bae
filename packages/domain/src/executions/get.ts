import { schema, type Tx, withTenant } from '@weft/db';
import { isStoredOutputRef, STORED_OUTPUT_KEY } from '@weft/graph';
import { and, asc, eq, inArray } from 'drizzle-orm';
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
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)));
    if (!row) throw notFound('Execution');
    const steps = await loadPresentedSteps(tx, row.id);
    return {
      ...presentExecution(row, temporalUiUrl),
      trigger_payload: row.triggerPayload,
      steps,
    };
  });
}

/**
 * An execution's steps in run order, presented. A step whose output (or resolved config) was too
 * large for Temporal holds a reference to stored_outputs; the value itself is shown. References
 * nested in merge/loop outputs stay as they are.
 */
export async function loadPresentedSteps(tx: Tx, executionId: string) {
  const s = schema.executionSteps;
  const steps = await tx
    .select()
    .from(s)
    .where(eq(s.executionId, executionId))
    .orderBy(asc(s.position), asc(s.iteration));
  const storedIds = steps
    .flatMap((step) => [step.output, step.resolvedConfig])
    .filter(isStoredOutputRef)
    .map((ref) => ref[STORED_OUTPUT_KEY]);
  const o = schema.storedOutputs;
  const stored = new Map(
    storedIds.length === 0
      ? []
      : (await tx.select({ id: o.id, value: o.value }).from(o).where(inArray(o.id, storedIds))).map(
          (r) => [r.id, r.value] as const,
        ),
  );
  const expand = (value: unknown) =>
    isStoredOutputRef(value) ? (stored.get(value[STORED_OUTPUT_KEY]) ?? value) : value;
  return steps.map((step) =>
    presentStep({ ...step, output: expand(step.output), resolvedConfig: expand(step.resolvedConfig) }),
  );
}
