import postgres from 'postgres';

/** PostgreSQL's "password authentication failed". */
const INVALID_PASSWORD = '28P01';

/**
 * Makes `password` the superuser's password of the embedded server on `port` when it still has one
 * of `previous` (its passwords derive from APP_KEY, so after a key rotation the server holds the old
 * key's): tries the current one, then each previous one, and on a match sets the current one.
 * Throws one clear line when none is accepted. The server listens on 127.0.0.1 only.
 */
export async function adoptAdminPassword(
  port: number,
  password: string,
  previous: readonly string[] = [],
): Promise<void> {
  for (const candidate of [password, ...previous]) {
    const client = postgres(
      `postgres://postgres:${encodeURIComponent(candidate)}@127.0.0.1:${port}/postgres`,
      { max: 1, onnotice: () => {} },
    );
    try {
      await client`select 1`;
      if (candidate !== password) {
        await client.unsafe(`ALTER ROLE postgres PASSWORD '${password.replaceAll("'", "''")}'`);
      }
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== INVALID_PASSWORD) throw error;
    } finally {
      await client.end({ timeout: 5 });
    }
  }
  throw new Error(
    `the embedded PostgreSQL on port ${port} accepts the password of neither APP_KEY nor any key in ` +
      'APP_KEYS_PREVIOUS: start with the APP_KEY it was created with (docs/key-custody.md)',
  );
}
