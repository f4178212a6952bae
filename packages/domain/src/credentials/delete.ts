import { schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError } from '../errors';
import { findCredentialRow } from './find';
import { auditedCredential } from './present';

/**
 * Deletes a credential no workflow uses. One that is still referenced (by a node's or a trigger's
 * `credential_id`) is refused with 409 naming the workflows, so no execution fails later for it.
 */
export async function deleteCredential({ ctx, input }: VerbArgs<{ id: string }>) {
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const row = await findCredentialRow(tx, ctx.organizationId, input.id, true);
    const w = schema.workflows;
    const users = await tx
      .select({ id: w.id, name: w.name })
      .from(w)
      .where(
        and(
          eq(w.organizationId, ctx.organizationId),
          sql`(${w.triggerConfig}->>'credential_id' = ${row.id}
            or exists (select 1 from jsonb_array_elements(${w.nodes}) n where n->'config'->>'credential_id' = ${row.id}))`,
        ),
      )
      .limit(5);
    if (users.length > 0) {
      throw new AppError(
        'conflict',
        `The credential is used by ${users.map((u) => `"${u.name}"`).join(', ')}; remove it from those workflows first.`,
      );
    }
    await tx.delete(schema.credentials).where(eq(schema.credentials.id, row.id));
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'credential',
      entityId: row.id,
      oldValues: auditedCredential(row),
    });
  });
}
