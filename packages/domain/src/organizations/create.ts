import { type Database, schema, withTenant } from '@weft/db';
import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { storedText } from '../text';

export const CreateOrganizationInput = z.object({ name: storedText(z.string().trim().min(1).max(200)) });

/**
 * Creates an organization. It runs as the runtime role inside the new organization's own tenancy
 * transaction, so even this administrative verb never needs to bypass RLS.
 */
export async function createOrganization(db: Database, input: z.input<typeof CreateOrganizationInput>) {
  const { name } = CreateOrganizationInput.parse(input);
  const id = uuidv7();
  const [row] = await withTenant(db, id, (tx) =>
    tx.insert(schema.organizations).values({ id, name }).returning(),
  );
  if (!row) throw new Error('insert returned no row');
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString() };
}

/** Whether the organization exists (its row is visible only inside its own tenancy transaction). */
export async function organizationExists(db: Database, organizationId: string): Promise<boolean> {
  const rows = await withTenant(db, organizationId, (tx) =>
    tx
      .select({ id: schema.organizations.id })
      .from(schema.organizations)
      .where(eq(schema.organizations.id, organizationId)),
  );
  return rows.length === 1;
}
