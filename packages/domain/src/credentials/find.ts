import { schema, type Tx } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { notFound } from '../errors';
import { isUuid } from '../text';

/** The caller's credential row, or a 404 (another organization's id looks exactly like a missing one). */
export async function findCredentialRow(tx: Tx, organizationId: string, id: string, forUpdate = false) {
  if (!isUuid(id)) throw notFound('Credential');
  const t = schema.credentials;
  const query = tx
    .select()
    .from(t)
    .where(and(eq(t.id, id), eq(t.organizationId, organizationId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw notFound('Credential');
  return row;
}
