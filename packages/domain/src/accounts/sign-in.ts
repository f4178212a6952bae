import { schema } from '@weft/db';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../errors';
import { type AccountsDeps, auditAccountEvent, type RequestOrigin } from './deps';
import { verifyAgainstNothing, verifyPassword } from './passwords';
import { endSession, startSession, userMemberships, type WebSession } from './sessions';
import { countRequest } from './throttle';
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

/** Wrong codes a half-signed-in session may send before it ends. */
export const SECOND_FACTOR_TRIES = 5;

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
    : await verifyAgainstNothing(input.password, deps.hasher);
  if (!user || !ok) {
    // Recorded after the answer: an existing address must not take longer to refuse than an unknown one.
    if (user) {
      void userMemberships(deps.db, user.id)
        .then((memberships) =>
          auditAccountEvent(
            deps.db,
            memberships.map((m) => m.organization_id),
            { userId: user.id, origin, action: 'login_failed' },
          ),
        )
        .catch((error: unknown) =>
          deps.logWarning?.(
            { user_id: user.id, err: error },
            'a failed sign-in was not recorded in the audit log',
          ),
        );
    }
    throw new AppError('unauthenticated', LOGIN_FAILED);
  }
  const organizationIds = (await userMemberships(deps.db, user.id)).map((m) => m.organization_id);
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
    // However many addresses the guesses come from, a half session gets 5 tries, then the password again.
    const tries = await countRequest(deps.db, `auth:second-factor-session:${pending.sessionId}`);
    if (tries.count >= SECOND_FACTOR_TRIES) {
      await endSession(deps.db, pending.sessionId);
      throw new AppError('unauthenticated', 'Too many wrong codes; sign in with your password again.');
    }
    throw new AppError('validation_error', 'That code is not valid.', {
      [input.recovery_code ? 'recovery_code' : 'code']: ['That code is not valid; try the current one.'],
    });
  }
  await endSession(deps.db, pending.sessionId);
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
