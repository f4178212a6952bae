import type { Database } from '@weft/db';
import { type SQL, sql } from 'drizzle-orm';
import { SEALED_COLUMNS, type SealedColumn } from './sealed-columns';
import { type KeyRingBox, SecretBoxError } from './secret-box';

/** What `weft keys rotate` did to one sealed column. */
export interface ColumnRotation {
  column: string;
  /** Sealed values found. */
  scanned: number;
  /** Re-sealed with APP_KEY. */
  rotated: number;
  /** Already sealed with APP_KEY in the current format: left as they were. */
  alreadyCurrent: number;
  /** Opened by no key of the ring (left as they were; the command then exits 1). */
  unreadable: number;
}

export interface RotationReport {
  /** Key id of APP_KEY, which sealed every rotated value. */
  keyId: string;
  columns: ColumnRotation[];
  total: Omit<ColumnRotation, 'column'>;
}

const sealedValue = (c: SealedColumn): SQL =>
  c.jsonKey ? sql`${sql.identifier(c.column)} ->> ${c.jsonKey}` : sql`${sql.identifier(c.column)}`;

const keyList = (c: SealedColumn): SQL =>
  sql.join(
    c.keys.map((key) => sql.identifier(key)),
    sql`, `,
  );

/** Paging by primary key: the batch after `after` (a row of the key's values, as text). */
function selectBatch(c: SealedColumn, after: string[] | undefined, limit: number): SQL {
  const page = after
    ? sql`and (${keyList(c)}) > (${sql.join(
        after.map((value) => sql`${value}`),
        sql`, `,
      )})`
    : sql``;
  const keysAsText = sql.join(
    c.keys.map((key, i) => sql`${sql.identifier(key)}::text as ${sql.identifier(`k${i}`)}`),
    sql`, `,
  );
  return sql`select ctid::text as row_ref, ${keysAsText}, ${sealedValue(c)} as sealed
    from ${sql.identifier(c.table)}
    where ${sealedValue(c)} is not null ${page}
    order by ${keyList(c)} limit ${limit} for update`;
}

function updateBatch(c: SealedColumn, rows: { ref: string; value: string }[]): SQL {
  const values = sql.join(
    rows.map((row) => sql`(${row.ref}::tid, ${row.value}::text)`),
    sql`, `,
  );
  const target = sql.identifier(c.column);
  const set = c.jsonKey
    ? sql`${target} = jsonb_set(${target}, ${`{${c.jsonKey}}`}::text[], to_jsonb(v.sealed))`
    : sql`${target} = v.sealed`;
  return sql`update ${sql.identifier(c.table)} as t set ${set}
    from (values ${values}) as v(row_ref, sealed) where t.ctid = v.row_ref`;
}

/**
 * Re-seals every stored secret with APP_KEY (docs/key-custody.md): each sealed column of
 * SEALED_COLUMNS is read in primary-key order, `batchSize` rows per transaction (locked while they
 * are re-sealed), and values sealed with an older key of the ring, or in the format from before key
 * ids, are written again under APP_KEY. Values already current are left alone, so a second run
 * rotates nothing; a value no key opens is counted, never changed.
 *
 * `db` must see every organization's rows: the owner connection (a superuser or BYPASSRLS role, as
 * the migrations need), not the runtime role weft_app.
 */
export async function rotateSealedValues(
  db: Database,
  box: KeyRingBox,
  options: { batchSize: number; columns?: readonly SealedColumn[] },
): Promise<RotationReport> {
  const [role] = (await db.execute(
    sql`select rolsuper or rolbypassrls as sees_all from pg_roles where rolname = current_user`,
  )) as unknown as { sees_all: boolean }[];
  if (!role?.sees_all) {
    throw new Error(
      'key rotation needs the owner connection (a superuser or BYPASSRLS role, DATABASE_ADMIN_URL): ' +
        "this role's row-level security would hide other organizations' secrets",
    );
  }
  const columns: ColumnRotation[] = [];
  for (const column of options.columns ?? SEALED_COLUMNS) {
    const counts: ColumnRotation = {
      column: column.name,
      scanned: 0,
      rotated: 0,
      alreadyCurrent: 0,
      unreadable: 0,
    };
    let after: string[] | undefined;
    for (;;) {
      const batch = await db.transaction(async (tx) => {
        const rows = (await tx.execute(selectBatch(column, after, options.batchSize))) as unknown as Record<
          string,
          string
        >[];
        const changed: { ref: string; value: string }[] = [];
        for (const row of rows) {
          const sealed = row.sealed ?? '';
          counts.scanned++;
          if (box.isCurrent(sealed)) {
            counts.alreadyCurrent++;
            continue;
          }
          try {
            changed.push({ ref: row.row_ref ?? '', value: box.encrypt(box.decrypt(sealed)) });
          } catch (error) {
            if (!(error instanceof SecretBoxError)) throw error;
            counts.unreadable++;
          }
        }
        if (changed.length > 0) await tx.execute(updateBatch(column, changed));
        counts.rotated += changed.length;
        return rows;
      });
      const last = batch.at(-1);
      if (!last || batch.length < options.batchSize) break;
      after = column.keys.map((_key, i) => last[`k${i}`] ?? '');
    }
    columns.push(counts);
  }
  const total = { scanned: 0, rotated: 0, alreadyCurrent: 0, unreadable: 0 };
  for (const c of columns) {
    total.scanned += c.scanned;
    total.rotated += c.rotated;
    total.alreadyCurrent += c.alreadyCurrent;
    total.unreadable += c.unreadable;
  }
  return { keyId: box.currentKeyId, columns, total };
}
