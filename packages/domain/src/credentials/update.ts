import { schema, withTenant } from '@weft/db';
import { eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError, notFound } from '../errors';
import { uniqueNameConflict } from './conflicts';
import type { CredentialDeps } from './create';
import type { CredentialUpdateInput } from './credential-input';
import { CREDENTIAL_TYPES } from './credential-types';
import { findCredentialRow } from './find';
import { auditedCredential, presentCredential } from './present';
import { openCredentialSecrets, sealCredentialFields, withoutMasks } from './store';

/** PUT semantics for name and public fields; a secret field left out keeps its stored value. */
export async function updateCredential({
  ctx,
  input,
  deps,
}: VerbArgs<{ id: string; credential: CredentialUpdateInput }> & { deps: CredentialDeps }) {
  const next = input.credential;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const existing = await findCredentialRow(tx, ctx.organizationId, input.id, true);
    if (existing.type !== next.type) {
      // The body is valid; the stored credential's type is what it conflicts with.
      throw new AppError(
        'conflict',
        `A credential keeps its type (${existing.type}); create a new one instead.`,
        {
          type: [`A credential keeps its type (${existing.type}); create a new one instead`],
        },
      );
    }
    const kept = openCredentialSecrets(existing.secretCiphertext, deps.secrets);
    const secretKeys: readonly string[] = CREDENTIAL_TYPES[next.type].secrets;
    // A masked value sent back (GET, edit, PUT) keeps the stored secret, like a left-out one.
    const fields = withoutMasks(next.fields, secretKeys);
    const changed = secretKeys.filter((key) => fields[key] !== undefined && fields[key] !== kept[key]);
    const sealed = sealCredentialFields(next.type, { ...kept, ...fields }, deps.secrets);
    const [row] = await uniqueNameConflict(
      tx
        .update(schema.credentials)
        .set({ name: next.name, ...sealed })
        .where(eq(schema.credentials.id, existing.id))
        .returning(),
    );
    if (!row) throw notFound('Credential');
    // The secrets themselves never reach the audit trail; which of them changed does.
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'credential',
      entityId: row.id,
      oldValues: auditedCredential(existing),
      newValues: { ...auditedCredential(row), secrets_changed: changed.sort() },
    });
    return presentCredential(row);
  });
}
