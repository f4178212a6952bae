import { withTenant } from '@weft/db';
import type { VerbArgs } from '../context';
import { findCredentialRow } from './find';
import { presentCredential } from './present';

export async function getCredential({ ctx, input }: VerbArgs<{ id: string }>) {
  const row = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    findCredentialRow(tx, ctx.organizationId, input.id),
  );
  return presentCredential(row);
}
