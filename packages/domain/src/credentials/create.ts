import { schema, withTenant } from '@weft/db';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import type { SecretBox } from '../encryption';
import { validationError } from '../errors';
import { uniqueNameConflict } from './conflicts';
import type { CredentialInput } from './credential-input';
import { CREDENTIAL_TYPES } from './credential-types';
import { auditedCredential, presentCredential } from './present';
import { sealCredentialFields, withoutMasks } from './store';

export interface CredentialDeps {
  secrets: SecretBox;
}

/** Creates a credential; the answer (like every later one) shows its secret fields masked. */
export async function createCredential({
  ctx,
  input,
  deps,
}: VerbArgs<CredentialInput> & { deps: CredentialDeps }) {
  // A mask is what the API shows of a secret, never a secret: on create there is nothing to keep.
  const unmasked = withoutMasks(input.fields, CREDENTIAL_TYPES[input.type].secrets);
  const masked = Object.keys(input.fields).filter((key) => !(key in unmasked));
  if (masked.length > 0) {
    throw validationError(
      Object.fromEntries(
        masked.map((key) => [`fields.${key}`, ['is a masked value: send the secret itself']]),
      ),
    );
  }
  const sealed = sealCredentialFields(input.type, input.fields, deps.secrets);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await uniqueNameConflict(
      tx
        .insert(schema.credentials)
        .values({ organizationId: ctx.organizationId, name: input.name, type: input.type, ...sealed })
        .returning(),
    );
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'credential',
      entityId: row.id,
      newValues: { ...auditedCredential(row), secrets_changed: Object.keys(row.masks).sort() },
    });
    return presentCredential(row);
  });
}
