import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import type { SecretBox } from './secret-box';

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
  const rows = await db.execute<{ source: string; sealed: string }>(
    sql`select source, sealed from weft_sealed_value_samples(${SAMPLES_PER_COLUMN})`,
  );
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
