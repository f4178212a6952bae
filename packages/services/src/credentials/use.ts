import { type Database, withTenant } from '@weft/db';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import type { CredentialType } from './credential-types';
import { findCredentialRow } from './find';
import { openCredentialSecrets } from './store';

/** The credential a run needs is gone or of the wrong type: the same on every retry, so final. */
export class CredentialUnusableError extends Error {
  override readonly name = 'CredentialUnusableError';
  readonly code = 'credential_invalid';
}

export interface OpenedCredential {
  name: string;
  type: CredentialType;
  /** Public and secret fields together, in clear: for the activity that uses them, never to be stored. */
  fields: Record<string, string>;
}

/**
 * A credential of the organization, decrypted, for the activity that is about to use it. A
 * credential that is gone, or of a type the caller cannot use, is a `CredentialUnusableError`.
 */
export async function openCredential(
  db: Database,
  secrets: SecretBox,
  ref: { organizationId: string; credentialId: string; allowedTypes: readonly string[] },
): Promise<OpenedCredential> {
  const row = await withTenant(db, ref.organizationId, (tx) =>
    findCredentialRow(tx, ref.organizationId, ref.credentialId),
  ).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') {
      throw new CredentialUnusableError(`Credential ${ref.credentialId} does not exist in this organization`);
    }
    throw error;
  });
  if (!ref.allowedTypes.includes(row.type)) {
    throw new CredentialUnusableError(
      `Credential "${row.name}" is of type ${row.type}; this needs ${ref.allowedTypes.join(', ')}`,
    );
  }
  const fields = {
    ...(row.publicFields as Record<string, string>),
    ...openCredentialSecrets(row.secretCiphertext, secrets),
  };
  return { name: row.name, type: row.type as CredentialType, fields };
}
