import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/**
 * The advisory lock every schema-changing step takes. Each writing CLI command runs the migrations
 * and sets the runtime role's password; two at once (a script, the contract fuzz's set-up) made
 * PostgreSQL refuse one with "tuple concurrently updated" (two updates of one catalog row).
 */
const SCHEMA_STEPS_LOCK = 0x77_65_66_74; // "weft"

/** Applies the committed SQL migrations with the owner (admin) connection. Idempotent. */
export async function runMigrations(adminUrl: string): Promise<void> {
  // One connection: the session's advisory lock holds until it closes.
  const client = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${SCHEMA_STEPS_LOCK})`;
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } catch (error) {
    // drizzle's "Failed query: <SQL>" hides the reason (a refused login, a lock timeout): say it.
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new Error(
      `could not apply the migrations: ${reason instanceof Error ? reason.message : String(reason)}`,
      {
        cause: error,
      },
    );
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** Lets the runtime role log in with a password (the migration creates it NOLOGIN). */
export async function enableAppRoleLogin(adminUrl: string, password: string): Promise<void> {
  const client = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await client.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${SCHEMA_STEPS_LOCK})`;
      await tx.unsafe(`ALTER ROLE weft_app LOGIN PASSWORD '${password.replaceAll("'", "''")}'`);
    });
  } finally {
    await client.end({ timeout: 5 });
  }
}
