import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { isUuid } from '../text';
import type { ExecutionEngine } from './execution-engine';

const CANCELLABLE = new Set(['pending', 'running', 'waiting', 'failed']);

/**
 * POST /executions/{id}/cancel: a pending, running, waiting (or failed, parked for retry)
 * execution ends `cancelled`. The record is updated here at once, so cancel always takes effect
 * for the API even while the worker is down; the workflow stops when Temporal delivers the request.
 */
export async function cancelExecution({
  ctx,
  input,
  engine,
}: VerbArgs<{ id: string }> & { engine: ExecutionEngine }) {
  if (!isUuid(input.id)) throw notFound('Execution');
  const e = schema.executions;
  const row = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(e)
      .where(and(eq(e.id, input.id), eq(e.organizationId, ctx.organizationId)))
      .for('update');
    if (!existing) throw notFound('Execution');
    if (!CANCELLABLE.has(existing.status)) {
      throw new AppError('conflict', `A ${existing.status} execution cannot be cancelled.`);
    }
    const now = new Date();
    const [updated] = await tx
      .update(e)
      .set({
        status: 'cancelled',
        completedAt: now,
        durationMs: now.getTime() - existing.startedAt.getTime(),
      })
      .where(eq(e.id, input.id))
      .returning();
    return updated ?? existing;
  });
  await engine.cancel(input.id);
  return { id: row.id, status: row.status };
}
