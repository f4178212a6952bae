import { type Database, schema, withTenant } from '@weft/db';
import { findExpressions, isParsedExpression } from '@weft/graph';
import { and, eq, inArray } from 'drizzle-orm';
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

/** The credential names a config's `{{credentials.<name>.<field>}}` expressions use. */
export function credentialNamesIn(config: unknown): string[] {
  const names = new Set<string>();
  for (const expression of findExpressions(config)) {
    if (
      isParsedExpression(expression) &&
      expression.root === 'credentials' &&
      expression.path[0] !== undefined
    ) {
      names.add(String(expression.path[0]));
    }
  }
  return [...names];
}

/**
 * The scope values of `{{credentials.…}}` for one render: `open` has every named credential's fields
 * in clear (for the request), `shown` the same shape with `[credential:<name>]` for every field (for
 * the step's expression trace). A name the organization does not have is a CredentialUnusableError.
 */
export async function credentialScopes(
  db: Database,
  secrets: SecretBox,
  organizationId: string,
  names: string[],
): Promise<{ open: Record<string, Record<string, string>>; shown: Record<string, Record<string, string>> }> {
  const open: Record<string, Record<string, string>> = {};
  const shown: Record<string, Record<string, string>> = {};
  if (names.length === 0) return { open, shown };
  const c = schema.credentials;
  const rows = await withTenant(db, organizationId, (tx) =>
    tx
      .select()
      .from(c)
      .where(and(eq(c.organizationId, organizationId), inArray(c.name, names))),
  );
  for (const name of names) {
    const row = rows.find((r) => r.name === name);
    if (!row) throw new CredentialUnusableError(`No credential named "${name}" exists in this organization`);
    const fields = {
      ...(row.publicFields as Record<string, string>),
      ...openCredentialSecrets(row.secretCiphertext, secrets),
    };
    open[name] = fields;
    shown[name] = Object.fromEntries(Object.keys(fields).map((field) => [field, `[credential:${name}]`]));
  }
  return { open, shown };
}
