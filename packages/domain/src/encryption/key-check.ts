import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import type { SecretBox } from './secret-box';

/** The database has not been migrated to this version: the check (and the rest) cannot work. */
export class MigrationsMissingError extends Error {
  override name = 'MigrationsMissingError';
  constructor() {
    super(
      'the database lacks the migrations of this version (no weft_sealed_value_samples): run `weft migrate` first',
    );
  }
}

/** Sealed values sampled per sealed column at start-up. */
const SAMPLES_PER_COLUMN = 3;

export interface KeyCheck {
  /** Sealed values sampled (0: nothing sealed yet, which any key fits). */
  sampled: number;
  /** Of those, how many a key of the ring opened. */
  opened: number;
  /** The sampled columns. */
  sources: string[];
}

/**
 * Whether the key ring opens what the database holds: a few of the newest sealed values of each
 * sealed column (weft_sealed_value_samples, across organizations), each tried with the ring.
 */
export async function checkKeyRing(db: Database, box: SecretBox): Promise<KeyCheck> {
  const rows = await db
    .execute<{ source: string; sealed: string }>(
      sql`select source, sealed from weft_sealed_value_samples(${SAMPLES_PER_COLUMN})`,
    )
    .catch((error: unknown) => {
      // 42883 undefined_function: a database the migrations have not reached yet.
      const code =
        (error as { code?: string; cause?: { code?: string } }).cause?.code ??
        (error as { code?: string }).code;
      if (code !== '42883') throw error;
      throw new MigrationsMissingError();
    });
  let opened = 0;
  for (const row of rows) {
    try {
      box.decrypt(row.sealed);
      opened++;
    } catch {
      // Counted as not opened: the caller decides what none opening means.
    }
  }
  return { sampled: rows.length, opened, sources: [...new Set(rows.map((row) => row.source))] };
}

/**
 * The one line a process prints before it refuses to start because its key opens nothing it
 * finds; null when it may start (something opened, or nothing is sealed yet). Some values not
 * opening is not a refusal: one secret sealed under a dropped key must not take every replica down.
 */
export function keyRingRefusal(check: KeyCheck): string | null {
  if (check.sampled === 0 || check.opened > 0) return null;
  return (
    `APP_KEY opens none of the ${check.sampled} sealed values sampled from the database ` +
    `(${check.sources.join(', ')}): start with the APP_KEY that sealed them, or list it in ` +
    'APP_KEYS_PREVIOUS (docs/key-custody.md)'
  );
}

/**
 * The start-up check of the API and worker (main.ts): the one line to exit 1 with, or null to start.
 * A database that cannot be reached does not stop a start (the process retries it, /readyz reports
 * it, and `weft up`'s supervisor must not give up while PostgreSQL restarts): the check is then
 * skipped with a warning. A database without this version's migrations does stop it.
 */
export async function keyRingStartRefusal(
  db: Database,
  box: SecretBox,
  warn: (message: string, error: unknown) => void,
): Promise<string | null> {
  try {
    return keyRingRefusal(await checkKeyRing(db, box));
  } catch (error) {
    if (error instanceof MigrationsMissingError) return error.message;
    warn('APP_KEY was not checked against the database (unreachable?): starting without the check', error);
    return null;
  }
}
