import { schema } from '@weft/db';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../errors';
import { type AccountsDeps, auditAccountEvent, type RequestOrigin } from './deps';
import { verifyAgainstNothing, verifyPassword } from './passwords';
import { startSession, userMemberships, type WebSession } from './sessions';
import { useRecoveryCode, verifyTotp } from './two-factor';

export const LoginInput = z.object({
  email: z.string().max(254),
  password: z.string().max(256),
  captcha_token: z.string().max(4096).optional(),
});

export const SecondFactorInput = z
  .object({
    code: z.string().trim().max(16).optional(),
    recovery_code: z.string().trim().max(32).optional(),
  })
  .refine((v) => Boolean(v.code) !== Boolean(v.recovery_code), {
    message: 'Give either a code from the authenticator app or a recovery code.',
    path: ['code'],
  });

/** One answer for an unknown e-mail and a wrong password alike. */
export const LOGIN_FAILED = 'The e-mail or password is incorrect.';

export async function findUserByEmail(deps: Pick<AccountsDeps, 'db'>, email: string) {
  const [user] = await deps.db
    .select()
    .from(schema.users)
    .where(sql`lower(${schema.users.email}) = lower(${email})`);
  return user;
}

/**
 * Password step of signing in. A user without two-factor gets a full session; one with it gets a
 * short session that grants nothing until `completeSecondFactor` replaces it with a new one.
 */
export async function login(deps: AccountsDeps, input: z.infer<typeof LoginInput>, origin: RequestOrigin) {
  const user = await findUserByEmail(deps, input.email);
  const ok = user
    ? await verifyPassword(user.passwordHash, input.password)
    : await verifyAgainstNothing(input.password);
  const memberships = user ? await userMemberships(deps.db, user.id) : [];
  const organizationIds = memberships.map((m) => m.organization_id);
  if (!user || !ok) {
    if (user)
      await auditAccountEvent(deps.db, organizationIds, { userId: user.id, origin, action: 'login_failed' });
    throw new AppError('unauthenticated', LOGIN_FAILED);
  }
  const awaitingSecondFactor = user.totpEnabledAt !== null;
  const session = await startSession(deps.db, deps.sessions, {
    userId: user.id,
    organizationId: organizationIds[0] ?? null,
    awaitingSecondFactor,
    ...origin,
  });
  if (!awaitingSecondFactor) {
    await auditAccountEvent(deps.db, organizationIds.slice(0, 1), {
      userId: user.id,
      origin,
      action: 'login',
    });
  }
  return { session, twoFactorRequired: awaitingSecondFactor };
}

/** The second step: a TOTP code or a recovery code turns the half session into a new full one. */
export async function completeSecondFactor(
  deps: AccountsDeps,
  pending: WebSession,
  input: z.infer<typeof SecondFactorInput>,
  origin: RequestOrigin,
) {
  if (!pending.awaitingSecondFactor) throw new AppError('conflict', 'This session is already signed in.');
  const organizationIds = (await userMemberships(deps.db, pending.userId)).map((m) => m.organization_id);
  const accepted = input.recovery_code
    ? await useRecoveryCode(deps, pending.userId, input.recovery_code)
    : await verifyTotp(deps, pending.userId, input.code ?? '');
  if (!accepted) {
    await auditAccountEvent(deps.db, organizationIds, {
      userId: pending.userId,
      origin,
      action: 'two_factor_failed',
    });
    throw new AppError('validation_error', 'That code is not valid.', {
      [input.recovery_code ? 'recovery_code' : 'code']: ['That code is not valid; try the current one.'],
    });
  }
  await deps.db.delete(schema.webSessions).where(eq(schema.webSessions.id, pending.sessionId));
  const session = await startSession(deps.db, deps.sessions, {
    userId: pending.userId,
    organizationId: pending.organizationId,
    awaitingSecondFactor: false,
    ...origin,
  });
  await auditAccountEvent(deps.db, organizationIds.slice(0, 1), {
    userId: pending.userId,
    origin,
    action: 'login',
    newValues: { second_factor: input.recovery_code ? 'recovery_code' : 'totp' },
  });
  return { session };
}
