import { timingSafeEqual } from 'node:crypto';
import type { Database } from '@weft/db';
import { sql } from 'drizzle-orm';
import { openCredentialSecrets } from '../credentials/store';
import type { SecretBox } from '../encryption';

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * GET /api/webhooks/chat: the cloud provider's verification handshake. True when the mode is
 * `subscribe` and the token is the verify_token of some organization's cloud chat module (the request
 * names no organization, so each is compared, in constant time).
 */
export async function acceptsChatHandshake(
  deps: { db: Database; secrets: SecretBox },
  query: { mode: string | undefined; verifyToken: string | undefined },
): Promise<boolean> {
  if (query.mode !== 'subscribe' || !query.verifyToken) return false;
  const modules = await deps.db.execute<{ secret_ciphertext: string }>(
    sql`select * from weft_list_cloud_chat_modules()`,
  );
  let accepted = false;
  for (const module of modules) {
    const { verify_token: token } = openCredentialSecrets(module.secret_ciphertext, deps.secrets);
    // Every module is compared, so the answer's timing does not tell how many there are before a match.
    if (token && sameText(token, query.verifyToken)) accepted = true;
  }
  return accepted;
}
