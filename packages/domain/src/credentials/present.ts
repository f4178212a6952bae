import type { schema } from '@weft/db';

type CredentialRow = typeof schema.credentials.$inferSelect;

/** A credential as the API answers it: public fields as they are, secret ones masked. Never a secret. */
export function presentCredential(row: Omit<CredentialRow, 'secretCiphertext'>) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    fields: { ...row.publicFields, ...row.masks },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type CredentialResource = ReturnType<typeof presentCredential>;

/** What the audit trail keeps: no secret, not even masked; which secrets changed is said separately. */
export function auditedCredential(row: Omit<CredentialRow, 'secretCiphertext'>) {
  const { fields: _fields, ...rest } = presentCredential(row);
  return { ...rest, public_fields: row.publicFields, secret_fields: Object.keys(row.masks).sort() };
}
