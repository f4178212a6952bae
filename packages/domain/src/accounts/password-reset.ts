import { schema, withTenant } from '@weft/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import type { ServiceContext } from '../context';
import { AppError, notFound } from '../errors';
import { randomToken } from '../random-token';
import { type AccountsDeps, auditAccountEvent, mailThroughModule, type RequestOrigin } from './deps';
import { hashPassword, Password, verifyPassword } from './passwords';
import { mayGrantRole } from './roles';
import { endUserSessions, userMemberships, type WebSession } from './sessions';
import { findUserByEmail } from './sign-in';
import { hashToken } from './tokens';

export const RESET_TOKEN_MINUTES = 60;

export const ForgotPasswordInput = z.object({
  email: z.string().max(254),
  captcha_token: z.string().max(4096).optional(),
});
export const ResetPasswordInput = z.object({ token: z.string().min(1).max(100), password: Password });
export const ChangePasswordInput = z.object({
  current_password: z.string().max(256),
  new_password: Password,
});

/** The same answer whether the address is known or not. */
export const RESET_REQUESTED = 'If an account uses that address, a reset link is on its way.';

/** A new single-use reset link for `userId`, valid 60 minutes; only the token's hash is stored. */
async function newResetLink(deps: Pick<AccountsDeps, 'db' | 'siteUrl'>, userId: string) {
  const token = randomToken();
  await deps.db.insert(schema.passwordResetTokens).values({
    tokenHash: hashToken(token),
    userId,
    expiresAt: new Date(Date.now() + RESET_TOKEN_MINUTES * 60_000),
  });
  return `${deps.siteUrl.replace(/\/$/, '')}/reset-password?token=${encodeURIComponent(token)}`;
}

/**
 * Starts a reset: a reset link e-mailed through the e-mail module of one of the user's
 * organizations. With none, nothing is sent and the link is not logged either (it takes the
 * account over): the warning says an admin can hand one out (`weft user reset-link`, or the
 * members list of the Organization page). The mail is sent after the answer, so the answer takes as long for an unknown
 * address as for a known one.
 */
export async function requestPasswordReset(deps: AccountsDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps, email);
  if (!user) return;
  // Everything a known address costs beyond the look-up happens after the answer.
  void (async () => {
    const organizationIds = (await userMemberships(deps.db, user.id)).map((m) => m.organization_id);
    const url = await newResetLink(deps, user.id);
    const sent = await mailThroughModule(deps, organizationIds, {
      to: user.email,
      subject: 'Reset your Weft password',
      text: `Someone asked to reset the password of your Weft account.\n\nOpen this link within ${RESET_TOKEN_MINUTES} minutes to choose a new one:\n${url}\n\nIf it was not you, ignore this e-mail.`,
    });
    if (!sent) {
      deps.logWarning?.(
        { user_id: user.id },
        'password reset asked for, but no organization of the user has an e-mail module: an admin can hand them a link (weft user reset-link, or Reset link on the Organization page)',
      );
    }
  })().catch((error: unknown) =>
    deps.logWarning?.({ user_id: user.id, err: error }, 'the password reset e-mail could not be sent'),
  );
}

/**
 * A reset link for a member of the organization, for an admin to hand over (the user has no
 * e-mail module to receive one). The caller must hold every permission of the member's role, and
 * a member of other organizations too is refused: an admin of one organization must not take
 * over an account another one relies on (the operator's `weft user reset-link` may). Audit-logged.
 */
export async function issueResetLink(
  deps: Pick<AccountsDeps, 'db' | 'siteUrl'>,
  ctx: ServiceContext,
  userId: string,
  options: { granted: readonly string[]; otherOrganizations: 'refuse' | 'allow' },
) {
  const memberships = await userMemberships(deps.db, userId);
  const here = memberships.find((m) => m.organization_id === ctx.organizationId);
  if (!here) throw notFound('Member');
  if (!mayGrantRole(options.granted, here.role)) {
    throw new AppError(
      'forbidden',
      `Only a caller holding every permission of ${here.role} may reset such a member.`,
    );
  }
  if (options.otherOrganizations === 'refuse' && memberships.length > 1) {
    throw new AppError(
      'conflict',
      'This member belongs to other organizations too: they reset their password themselves, or an operator runs weft user reset-link.',
    );
  }
  const url = await newResetLink(deps, userId);
  await withTenant(ctx.db, ctx.organizationId, (tx) =>
    recordAudit(tx, ctx, { action: 'password_reset_link', entityType: 'user', entityId: userId }),
  );
  return { reset_url: url, expires_in_minutes: RESET_TOKEN_MINUTES };
}

/** Once the password changed, no older reset link works. */
async function forgetResetTokens(deps: AccountsDeps, userId: string) {
  await deps.db.delete(schema.passwordResetTokens).where(eq(schema.passwordResetTokens.userId, userId));
}

/** Uses a reset token once; every session of the user ends (whoever held them). */
export async function resetPassword(
  deps: AccountsDeps,
  input: z.infer<typeof ResetPasswordInput>,
  origin: RequestOrigin,
) {
  const passwordHash = await hashPassword(input.password, deps.hasher);
  const [used] = await deps.db
    .update(schema.passwordResetTokens)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(schema.passwordResetTokens.tokenHash, hashToken(input.token)),
        isNull(schema.passwordResetTokens.usedAt),
        sql`${schema.passwordResetTokens.expiresAt} > now()`,
      ),
    )
    .returning({ userId: schema.passwordResetTokens.userId });
  if (!used) {
    throw new AppError('validation_error', 'This reset link is invalid or has expired.', {
      token: ['This reset link is invalid or has expired; ask for a new one.'],
    });
  }
  await deps.db.update(schema.users).set({ passwordHash }).where(eq(schema.users.id, used.userId));
  await endUserSessions(deps.db, used.userId);
  await forgetResetTokens(deps, used.userId);
  const organizationIds = (await userMemberships(deps.db, used.userId)).map((m) => m.organization_id);
  await auditAccountEvent(deps.db, organizationIds, {
    userId: used.userId,
    origin,
    action: 'password_reset',
  });
}

/** A signed-in change: needs the current password; the user's other sessions end. */
export async function changePassword(
  deps: AccountsDeps,
  session: WebSession,
  input: z.infer<typeof ChangePasswordInput>,
  origin: RequestOrigin,
) {
  const [user] = await deps.db.select().from(schema.users).where(eq(schema.users.id, session.userId));
  if (!user || !(await verifyPassword(user.passwordHash, input.current_password))) {
    throw new AppError('validation_error', 'The current password is incorrect.', {
      current_password: ['The current password is incorrect.'],
    });
  }
  const passwordHash = await hashPassword(input.new_password, deps.hasher);
  await deps.db.update(schema.users).set({ passwordHash }).where(eq(schema.users.id, session.userId));
  await forgetResetTokens(deps, session.userId);
  const ended = await endUserSessions(deps.db, session.userId, session.sessionId);
  const organizationIds = (await userMemberships(deps.db, session.userId)).map((m) => m.organization_id);
  await auditAccountEvent(deps.db, organizationIds, {
    userId: session.userId,
    origin,
    action: 'password_changed',
    newValues: { other_sessions_ended: ended },
  });
  return { other_sessions_ended: ended };
}
