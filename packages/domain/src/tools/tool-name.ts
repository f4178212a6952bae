import { schema, type Tx } from '@weft/db';
import { and, eq, ne, sql } from 'drizzle-orm';
import { AppError } from '../errors';

/**
 * An active tool workflow's name is unique in its organization (callers name it, DESIGN §14). Drafts
 * and inactive ones may share a name: only activating a second one is refused, with a 409 saying
 * which workflow holds the name. A transaction lock on (organization, name) makes two concurrent
 * activations wait for each other, so both cannot pass the check.
 */
export async function assertToolNameFree(
  tx: Tx,
  organizationId: string,
  workflow: { trigger_type: string; trigger_config: Record<string, unknown>; status: string },
  ownId?: string,
): Promise<void> {
  if (workflow.trigger_type !== 'tool' || workflow.status !== 'active') return;
  const name = String(workflow.trigger_config.name);
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`tool:${organizationId}:${name}`}, 0))`,
  );
  const t = schema.workflows;
  const [holder] = await tx
    .select({ id: t.id, name: t.name })
    .from(t)
    .where(
      and(
        eq(t.organizationId, organizationId),
        eq(t.triggerType, 'tool'),
        eq(t.status, 'active'),
        sql`${t.triggerConfig}->>'name' = ${name}`,
        ...(ownId ? [ne(t.id, ownId)] : []),
      ),
    )
    .limit(1);
  if (holder) {
    throw new AppError(
      'conflict',
      `The tool name "${name}" is taken by the active workflow "${holder.name}" (${holder.id}); choose another name or deactivate that workflow first.`,
      { 'trigger_config.name': [`taken by the active workflow ${holder.id}`] },
    );
  }
}
