import { type Database, schema, withTenant } from '@weft/db';
import { isStoredOutputRef, STORED_OUTPUT_KEY, type StoredOutputRef } from '@weft/graph';
import { and, eq, inArray, sql } from 'drizzle-orm';

/** The organization of an execution, for activities that only know the execution (from its workflow id). */
export async function executionOrganization(db: Database, executionId: string): Promise<string | null> {
  const rows = await db.execute<{ organization_id: string | null }>(
    sql`select weft_execution_organization(${executionId}::uuid) as organization_id`,
  );
  return rows[0]?.organization_id ?? null;
}

/**
 * Keeps `value` when its JSON is at most `limitBytes`; otherwise stores it in PostgreSQL and returns
 * a reference the workflow carries instead (Temporal payloads stop at 2 MB, histories at 50 MB).
 */
export async function storeIfLarge(
  db: Database,
  ref: { organizationId?: string; executionId: string },
  value: unknown,
  limitBytes: number,
  /** A fixed id makes the store idempotent: a retried call finds its row and stores nothing more. */
  fixedId?: string,
): Promise<unknown> {
  if (value === undefined) return value;
  const json = JSON.stringify(value);
  const sizeBytes = Buffer.byteLength(json);
  if (sizeBytes <= limitBytes) return value;
  const organizationId = ref.organizationId ?? (await executionOrganization(db, ref.executionId));
  if (!organizationId) throw new Error(`execution ${ref.executionId} does not exist`);
  const [row] = await withTenant(db, organizationId, (tx) =>
    tx
      .insert(schema.storedOutputs)
      .values({
        ...(fixedId ? { id: fixedId } : {}),
        organizationId,
        executionId: ref.executionId,
        value: sql`${json}::jsonb`,
        sizeBytes,
      })
      .onConflictDoNothing({ target: schema.storedOutputs.id })
      .returning({ id: schema.storedOutputs.id }),
  );
  const id = row?.id ?? fixedId;
  if (!id) throw new Error('insert returned no row');
  const stored: StoredOutputRef = { [STORED_OUTPUT_KEY]: id, size_bytes: sizeBytes };
  return stored;
}

function collectRefs(value: unknown, into: Set<string>, depth = 0): void {
  if (typeof value !== 'object' || value === null || depth > 64) return;
  if (isStoredOutputRef(value)) {
    into.add(value[STORED_OUTPUT_KEY]);
    return;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value))
    collectRefs(child, into, depth + 1);
}

function replaceRefs(value: unknown, values: Map<string, unknown>, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (isStoredOutputRef(value)) return values.get(value[STORED_OUTPUT_KEY]) ?? null;
  if (Array.isArray(value)) return value.map((child) => replaceRefs(child, values, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, replaceRefs(child, values, depth + 1)]),
  );
}

/** Replaces every reference inside `value` with the stored value (one query for all of them). */
export async function resolveStoredOutputs(
  db: Database,
  ref: { organizationId?: string; executionId: string },
  value: unknown,
): Promise<unknown> {
  const ids = new Set<string>();
  collectRefs(value, ids);
  if (ids.size === 0) return value;
  const organizationId = ref.organizationId ?? (await executionOrganization(db, ref.executionId));
  if (!organizationId) throw new Error(`execution ${ref.executionId} does not exist`);
  const t = schema.storedOutputs;
  const rows = await withTenant(db, organizationId, (tx) =>
    tx
      .select({ id: t.id, value: t.value })
      .from(t)
      .where(and(eq(t.executionId, ref.executionId), inArray(t.id, [...ids]))),
  );
  return replaceRefs(value, new Map(rows.map((row) => [row.id, row.value])));
}
