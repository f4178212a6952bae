import { randomBytes } from 'node:crypto';
import { schema } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { generateSecret, generateURI, verify } from 'otplib';
import { z } from 'zod';
import { AppError } from '../errors';
import { type AccountsDeps, auditAccountEvent, type RequestOrigin } from './deps';
import { userMemberships, type WebSession } from './sessions';
import { hashToken } from './tokens';

export const RECOVERY_CODE_COUNT = 8;
/** RFC 6238 with one 30-second step either side. */
const TOLERANCE_SECONDS = 30;

/** A 6-digit code, or (to turn two-factor off) a recovery code such as `1a2b3c4d-5e6f7a8b`. */
export const TotpCodeInput = z.object({ code: z.string().trim().min(1, 'Enter the 6-digit code.').max(32) });

const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

async function userRow(deps: AccountsDeps, userId: string) {
  const [user] = await deps.db.select().from(schema.users).where(eq(schema.users.id, userId));
  if (!user) throw new AppError('unauthenticated', 'Sign in again.');
  return user;
}

/**
 * Checks a TOTP code against the user's secret and records its time step in the same statement that
 * accepts it, so a code (or an older one) is never accepted twice, even by two racing requests.
 */
export async function verifyTotp(deps: AccountsDeps, userId: string, code: string) {
  const user = await userRow(deps, userId);
  const ciphertext = user.totpSecretCiphertext;
  if (!ciphertext || !/^\d{6}$/.test(code)) return false;
  const secret = deps.secrets.decrypt(ciphertext);
  // otplib throws when the last accepted step lies beyond the window (a clock stepped back): refuse.
  const result = await verify({
    secret,
    token: code,
    epochTolerance: TOLERANCE_SECONDS,
    ...(user.totpLastStep !== null ? { afterTimeStep: user.totpLastStep } : {}),
  }).catch(() => ({ valid: false as const }));
  if (!result.valid || !('timeStep' in result)) return false;
  const claimed = await deps.db
    .update(schema.users)
    .set({ totpLastStep: result.timeStep })
    .where(
      and(
        eq(schema.users.id, userId),
        sql`(${schema.users.totpLastStep} is null or ${schema.users.totpLastStep} < ${result.timeStep})`,
      ),
    )
    .returning({ id: schema.users.id });
  return claimed.length === 1;
}

/** A recovery code works once: it is removed in the statement that accepts it. */
export async function useRecoveryCode(deps: AccountsDeps, userId: string, code: string) {
  const hash = hashToken(normaliseRecoveryCode(code));
  const used = await deps.db
    .update(schema.users)
    .set({ recoveryCodeHashes: sql`array_remove(${schema.users.recoveryCodeHashes}, ${hash})` })
    .where(and(eq(schema.users.id, userId), sql`${hash} = any(${schema.users.recoveryCodeHashes})`))
    .returning({ id: schema.users.id });
  return used.length === 1;
}

/** Step one: a new secret (kept encrypted, not yet active) and the otpauth URI for the QR code. */
export async function beginTwoFactorSetup(deps: AccountsDeps, session: WebSession) {
  const user = await userRow(deps, session.userId);
  if (user.totpEnabledAt) throw new AppError('conflict', 'Two-factor authentication is already on.');
  const secret = generateSecret();
  await deps.db
    .update(schema.users)
    .set({ totpSecretCiphertext: deps.secrets.encrypt(secret), totpLastStep: null })
    .where(eq(schema.users.id, session.userId));
  return { secret, otpauth_uri: generateURI({ issuer: 'Weft', label: user.email, secret }) };
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomBytes(8).toString('hex'); // 64 bits each
    return `${raw.slice(0, 8)}-${raw.slice(8)}`;
  });
}

/** Step two: a valid code turns it on; the recovery codes are answered once and stored hashed. */
export async function confirmTwoFactor(
  deps: AccountsDeps,
  session: WebSession,
  code: string,
  origin: RequestOrigin,
) {
  const user = await userRow(deps, session.userId);
  if (user.totpEnabledAt) throw new AppError('conflict', 'Two-factor authentication is already on.');
  if (!user.totpSecretCiphertext) throw new AppError('conflict', 'Start the set-up first.');
  if (!(await verifyTotp(deps, session.userId, code))) {
    throw new AppError('validation_error', 'That code is not valid.', { code: ['That code is not valid.'] });
  }
  const codes = newRecoveryCodes();
  await deps.db
    .update(schema.users)
    .set({
      totpEnabledAt: new Date(),
      recoveryCodeHashes: codes.map((c) => hashToken(normaliseRecoveryCode(c))),
    })
    .where(eq(schema.users.id, session.userId));
  const organizationIds = (await userMemberships(deps.db, session.userId)).map((m) => m.organization_id);
  await auditAccountEvent(deps.db, organizationIds, {
    userId: session.userId,
    origin,
    action: 'two_factor_enabled',
  });
  return { recovery_codes: codes };
}

/** Turning it off needs a current code (or a recovery code), not just the session. */
export async function disableTwoFactor(
  deps: AccountsDeps,
  session: WebSession,
  code: string,
  origin: RequestOrigin,
) {
  const user = await userRow(deps, session.userId);
  if (!user.totpEnabledAt) throw new AppError('conflict', 'Two-factor authentication is off.');
  const accepted =
    (await verifyTotp(deps, session.userId, code)) || (await useRecoveryCode(deps, session.userId, code));
  const organizationIds = (await userMemberships(deps.db, session.userId)).map((m) => m.organization_id);
  if (!accepted) {
    await auditAccountEvent(deps.db, organizationIds, {
      userId: session.userId,
      origin,
      action: 'two_factor_failed',
    });
    throw new AppError('validation_error', 'That code is not valid.', { code: ['That code is not valid.'] });
  }
  await deps.db
    .update(schema.users)
    .set({ totpEnabledAt: null, totpSecretCiphertext: null, totpLastStep: null, recoveryCodeHashes: [] })
    .where(eq(schema.users.id, session.userId));
  await auditAccountEvent(deps.db, organizationIds, {
    userId: session.userId,
    origin,
    action: 'two_factor_disabled',
  });
}
