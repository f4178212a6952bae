import postgres from 'postgres';

/** PostgreSQL's "password authentication failed". */
const INVALID_PASSWORD = '28P01';

/**
 * Which of `candidates` logs `user` into `database` on the embedded server on `port` (127.0.0.1
 * only), or undefined when none does. Only connects: changes nothing, so read-only commands use it
 * after an APP_KEY rotation (the roles' passwords derive from the key, and still from the old one
 * until a writing command moves them).
 */
export async function acceptedPassword(
  port: number,
  user: string,
  database: string,
  candidates: readonly string[],
): Promise<string | undefined> {
  for (const candidate of candidates) {
    const client = postgres(
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(candidate)}@127.0.0.1:${port}/${database}`,
      { max: 1, onnotice: () => {} },
    );
    try {
      await client`select 1`;
      return candidate;
    } catch (error) {
      if ((error as { code?: string }).code !== INVALID_PASSWORD) throw error;
    } finally {
      await client.end({ timeout: 5 });
    }
  }
  return undefined;
}

/** The one line when no key of the ring opens a role of the embedded server. */
export const noKeyOpens = (port: number, user: string) =>
  new Error(
    `the embedded PostgreSQL on port ${port} (role ${user}) accepts the password of neither APP_KEY nor any key in ` +
      'APP_KEYS_PREVIOUS: start with the APP_KEY it was created with (docs/key-custody.md)',
  );

/**
 * Makes `password` the superuser's password of the embedded server on `port` when it still has one
 * of `previous` (its passwords derive from APP_KEY, so after a key rotation the server holds the old
 * key's): finds the one it accepts and, when it is an old one, sets the current one. Throws one
 * clear line when none is accepted. With `readOnly`, changes nothing and answers the accepted one.
 */
export async function adoptAdminPassword(
  port: number,
  password: string,
  previous: readonly string[] = [],
  options: { readOnly?: boolean } = {},
): Promise<string> {
  const accepted = await acceptedPassword(port, 'postgres', 'postgres', [password, ...previous]);
  if (accepted === undefined) throw noKeyOpens(port, 'postgres');
  if (accepted === password || options.readOnly) return accepted;
  const client = postgres(`postgres://postgres:${encodeURIComponent(accepted)}@127.0.0.1:${port}/postgres`, {
    max: 1,
    onnotice: () => {},
  });
  try {
    await client.unsafe(`ALTER ROLE postgres PASSWORD '${password.replaceAll("'", "''")}'`);
  } finally {
    await client.end({ timeout: 5 });
  }
  return password;
}
