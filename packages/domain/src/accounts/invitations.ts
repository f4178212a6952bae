import { postgresErrorCode, schema, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import type { ServiceContext } from '../context';
import { AppError, notFound } from '../errors';
import { randomToken } from '../random-token';
import { type AccountsDeps, mailThroughModule, type RequestOrigin } from './deps';
import { Email, PersonName } from './install';
import { hashPassword, Password, verifyPassword } from './passwords';
import { ROLES } from './roles';
import { startSession } from './sessions';
import { findUserByEmail } from './sign-in';
import { hashToken } from './tokens';

export const INVITATION_DAYS = 7;

export const CreateInvitationInput = z.object({ email: Email, role: z.enum(ROLES) });
export const AcceptInvitationInput = z.object({
  name: PersonName.optional(),
  password: Password,
});

const present = (row: typeof schema.invitations.$inferSelect) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  expires_at: row.expiresAt.toISOString(),
  created_at: row.createdAt.toISOString(),
});

/** Pending (unaccepted, unexpired) invitations of the organization. */
export async function listInvitations(ctx: ServiceContext) {
  const rows = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .select()
      .from(schema.invitations)
      .where(and(isNull(schema.invitations.acceptedAt), sql`${schema.invitations.expiresAt} > now()`))
      .orderBy(desc(schema.invitations.createdAt)),
  );
  return rows.map(present);
}

/**
 * A single-use link, valid 7 days. E-mailed when the organization's e-mail module is set up; the link
 * is answered in any case (once), so the admin can pass it on.
 */
export async function createInvitation(
  deps: AccountsDeps,
  ctx: ServiceContext,
  input: z.infer<typeof CreateInvitationInput>,
) {
  const token = randomToken();
  const row = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [member] = await tx.execute<{ n: number }>(sql`
      select count(*)::int as n from memberships m join users u on u.id = m.user_id
      where lower(u.email) = lower(${input.email})`);
    if ((member?.n ?? 0) > 0) {
      throw new AppError('conflict', 'This person is already a member.', { email: ['already a member'] });
    }
    const [inserted] = await tx
      .insert(schema.invitations)
      .values({
        organizationId: ctx.organizationId,
        email: input.email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: ctx.actor.userId ?? null,
        expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
      })
      .returning();
    if (!inserted) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'invitation',
      entityId: inserted.id,
      newValues: { email: input.email, role: input.role },
    });
    return inserted;
  });
  const url = `${deps.siteUrl.replace(/\/$/, '')}/invite/${encodeURIComponent(token)}`;
  let emailed = false;
  try {
    emailed = await mailThroughModule(deps, [ctx.organizationId], {
      to: input.email,
      subject: 'You are invited to Weft',
      text: `You are invited to join an organization on Weft as ${input.role}.\n\nOpen this link within ${INVITATION_DAYS} days to accept:\n${url}`,
    });
  } catch {
    emailed = false; // the link is still answered to the admin
  }
  return { ...present(row), invite_url: url, emailed };
}

export async function revokeInvitation(ctx: ServiceContext, id: string) {
  const deleted = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx.delete(schema.invitations).where(eq(schema.invitations.id, id)).returning();
    if (row) await recordAudit(tx, ctx, { action: 'revoked', entityType: 'invitation', entityId: id });
    return row;
  });
  if (!deleted) throw notFound('Invitation');
}

async function openInvitation(deps: AccountsDeps, token: string) {
  const rows = await deps.db.execute<{
    invitation_id: string;
    organization_id: string;
    organization_name: string;
    email: string;
    role: (typeof ROLES)[number];
    expires_at: Date | string;
    accepted_at: Date | string | null;
  }>(sql`select * from weft_find_invitation(${hashToken(token)})`);
  const row = rows[0];
  if (!row || row.accepted_at || new Date(row.expires_at).getTime() <= Date.now()) {
    throw new AppError('not_found', 'This invitation is invalid, used or expired; ask for a new one.');
  }
  return row;
}

/**
 * What the invitation page shows before accepting. Never whether the e-mail already has an account
 * (in another organization): the link also reaches the inviting admin, and the page is the same
 * either way (one form: a password, and a name used only for a new account).
 */
export async function describeInvitation(deps: AccountsDeps, token: string) {
  const row = await openInvitation(deps, token);
  return { organization_name: row.organization_name, email: row.email, role: row.role };
}

/**
 * Accepting: a new person chooses a password (an account is created); someone who already has an
 * account proves it with theirs. Either way the membership is added, the invitation used up in the
 * same transaction, and the person signed in.
 */
export async function acceptInvitation(
  deps: AccountsDeps,
  token: string,
  input: z.infer<typeof AcceptInvitationInput>,
  origin: RequestOrigin,
) {
  const invitation = await openInvitation(deps, token);
  const existing = await findUserByEmail(deps, invitation.email);
  if (existing && !(await verifyPassword(existing.passwordHash, input.password))) {
    throw new AppError('validation_error', 'The password is incorrect.', {
      password: ['This e-mail already has an account: enter its password.'],
    });
  }
  const passwordHash = existing ? undefined : await hashPassword(input.password, deps.hasher);
  const organizationId = invitation.organization_id;
  const userId = await withTenant(deps.db, organizationId, async (tx) => {
    const claimed = await tx
      .update(schema.invitations)
      .set({ acceptedAt: new Date() })
      .where(and(eq(schema.invitations.id, invitation.invitation_id), isNull(schema.invitations.acceptedAt)))
      .returning({ id: schema.invitations.id });
    if (claimed.length === 0) throw new AppError('not_found', 'This invitation has already been used.');
    let id = existing?.id;
    if (!id) {
      const [user] = await tx
        .insert(schema.users)
        .values({ email: invitation.email, name: input.name ?? null, passwordHash: passwordHash as string })
        .returning({ id: schema.users.id });
      id = user?.id as string;
    }
    await tx.insert(schema.memberships).values({ organizationId, userId: id, role: invitation.role });
    await recordAudit(
      tx,
      { db: deps.db, organizationId, actor: { userId: id, ipAddress: origin.ipAddress } },
      {
        action: 'created',
        entityType: 'membership',
        entityId: id,
        newValues: { email: invitation.email, role: invitation.role, via: 'invitation' },
      },
    );
    return id;
  }).catch((error: unknown) => {
    if (postgresErrorCode(error) === UNIQUE_VIOLATION)
      throw new AppError('conflict', 'You are already a member.');
    throw error;
  });
  // Someone with two-factor on still owes the code, as at any sign-in.
  const twoFactorRequired = Boolean(existing?.totpEnabledAt);
  const session = await startSession(deps.db, deps.sessions, {
    userId,
    organizationId,
    awaitingSecondFactor: twoFactorRequired,
    ...origin,
  });
  return { session, userId, organizationId, twoFactorRequired };
}
