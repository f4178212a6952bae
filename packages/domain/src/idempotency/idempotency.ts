import { createHash } from 'node:crypto';
import { schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../context';
import { type SecretBox, SecretBoxError } from '../encryption';
import { AppError } from '../errors';

/** How long a key is remembered (spec: 10 minutes). */
export const IDEMPOTENCY_TTL_MS = 10 * 60 * 1000;

/** 1-255 visible ASCII characters: no CR/LF, nothing that could be reflected into a header. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/** The same request by the same caller: API key id, method, path and the exact body bytes. */
export function fingerprintRequest(callerId: string, method: string, path: string, rawBody: string): string {
  return createHash('sha256').update(`${callerId}\n${method}\n${path}\n${rawBody}`).digest('hex');
}

/** Expired records an organization's next claim deletes at most: bounded work on the request path. */
export const IDEMPOTENCY_PRUNE_BATCH = 100;

export type IdempotencyClaim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: string };

/**
 * Claims a key before the request runs (Stripe semantics, scoped per organization):
 * - first use, or an expired record: claimed, the caller runs the request and then calls
 *   `completeIdempotentRequest` or `releaseIdempotencyKey`;
 * - a finished request with the same fingerprint: its stored response is replayed;
 * - a different request under the same key: 422 idempotency_conflict;
 * - the same request still running: 409 idempotency_conflict (retry shortly).
 *
 * Stored responses are sealed with `secrets` (they hold plain API keys, webhook secrets, hook URLs);
 * each claim also deletes up to {@link IDEMPOTENCY_PRUNE_BATCH} of the organization's expired records.
 */
export async function claimIdempotencyKey(
  ctx: ServiceContext,
  secrets: SecretBox,
  claim: { key: string; method: string; path: string; requestHash: string },
): Promise<IdempotencyClaim> {
  const t = schema.idempotencyKeys;
  const expiresAt = new Date(Date.now() + IDEMPOTENCY_TTL_MS);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await tx.delete(t).where(
      and(
        eq(t.organizationId, ctx.organizationId),
        sql`${t.key} in (select ${t.key} from ${t} where ${t.organizationId} = ${ctx.organizationId}
          and ${t.expiresAt} < now() and ${t.key} <> ${claim.key} limit ${IDEMPOTENCY_PRUNE_BATCH})`,
      ),
    );
    const claimed = await tx
      .insert(t)
      .values({
        organizationId: ctx.organizationId,
        key: claim.key,
        method: claim.method,
        path: claim.path,
        requestHash: claim.requestHash,
        state: 'in_progress',
        expiresAt,
      })
      .onConflictDoUpdate({
        target: [t.organizationId, t.key],
        set: {
          method: claim.method,
          path: claim.path,
          requestHash: claim.requestHash,
          state: 'in_progress',
          responseStatus: null,
          responseBody: null,
          createdAt: sql`now()`,
          expiresAt,
        },
        // Only an expired record may be taken over; a live one stays as it is.
        setWhere: sql`${t.expiresAt} < now()`,
      })
      .returning({ key: t.key });
    if (claimed.length > 0) return { kind: 'claimed' };

    const [existing] = await tx
      .select()
      .from(t)
      .where(and(eq(t.organizationId, ctx.organizationId), eq(t.key, claim.key)));
    if (!existing) return { kind: 'claimed' };
    if (existing.requestHash !== claim.requestHash) {
      throw new AppError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request.',
        { 'Idempotency-Key': ['already used with a different method, path or body'] },
      );
    }
    if (
      existing.state === 'in_progress' ||
      existing.responseStatus === null ||
      existing.responseBody === null
    ) {
      throw new AppError(
        'idempotency_conflict',
        'A request with this Idempotency-Key is still being processed.',
        {},
        409,
        { 'Retry-After': '1' },
      );
    }
    return {
      kind: 'replay',
      status: existing.responseStatus,
      body: openResponse(secrets, existing.responseBody),
    };
  });
}

/** A stored response; one stored in clear before responses were sealed (at most 10 minutes old) as is. */
function openResponse(secrets: SecretBox, stored: string): string {
  try {
    return secrets.decrypt(stored);
  } catch (error) {
    if (error instanceof SecretBoxError && (stored.startsWith('{') || stored.startsWith('['))) return stored;
    throw error;
  }
}

/** Stores the response of a claimed request, sealed: the row never holds its secrets in clear. */
export async function completeIdempotentRequest(
  ctx: ServiceContext,
  secrets: SecretBox,
  key: string,
  response: { status: number; body: string },
): Promise<void> {
  const t = schema.idempotencyKeys;
  const sealed = secrets.encrypt(response.body);
  await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .update(t)
      .set({ state: 'done', responseStatus: response.status, responseBody: sealed })
      .where(and(eq(t.organizationId, ctx.organizationId), eq(t.key, key))),
  );
}

/** Forgets a claim whose request failed on the server side, so that a retry can run again. */
export async function releaseIdempotencyKey(ctx: ServiceContext, key: string): Promise<void> {
  const t = schema.idempotencyKeys;
  await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .delete(t)
      .where(and(eq(t.organizationId, ctx.organizationId), eq(t.key, key), eq(t.state, 'in_progress'))),
  );
}
