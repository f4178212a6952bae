import { schema, withTenant } from '@weft/db';
import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import type { ServiceContext } from '../context';
import { AppError, notFound } from '../errors';
import { mayGrantRole, ROLES } from './roles';

export const UpdateMemberInput = z.object({ role: z.enum(ROLES) });

/** The organization's members (users with a membership here), oldest first. */
export async function listMembers(ctx: ServiceContext) {
  const rows = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .select({
        id: schema.users.id,
        email: schema.users.email,
        name: schema.users.name,
        role: schema.memberships.role,
        totpEnabledAt: schema.users.totpEnabledAt,
        joinedAt: schema.memberships.createdAt,
      })
      .from(schema.memberships)
      .innerJoin(schema.users, eq(schema.users.id, schema.memberships.userId))
      .orderBy(asc(schema.memberships.createdAt)),
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    two_factor_enabled: r.totpEnabledAt !== null,
    joined_at: r.joinedAt.toISOString(),
  }));
}

type Tx = Parameters<Parameters<typeof withTenant>[2]>[0];

/**
 * Changes to admins are serialised per organization, so two admins demoting or removing each other
 * at once cannot leave it with none.
 */
const lockAdmins = (tx: Tx, organizationId: string) =>
  tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`weft.admins:${organizationId}`}))`);

/** Nobody changes or removes a member whose role holds permissions they lack themselves. */
function assertMayManage(granted: readonly string[], role: (typeof ROLES)[number]) {
  if (!mayGrantRole(granted, role)) {
    throw new AppError(
      'forbidden',
      `Only a caller holding every permission of ${role} may change such a member.`,
    );
  }
}

/** An organization always keeps an admin: the last one cannot be demoted or removed. */
async function assertAnotherAdmin(tx: Tx, userId: string) {
  const [row] = await tx.execute<{ n: number }>(
    sql`select count(*)::int as n from memberships where role = 'admin' and user_id <> ${userId}`,
  );
  if ((row?.n ?? 0) === 0) {
    throw new AppError(
      'conflict',
      'The organization needs at least one admin; make someone else admin first.',
    );
  }
}

export async function updateMember(
  ctx: ServiceContext,
  userId: string,
  input: z.infer<typeof UpdateMemberInput>,
  granted: readonly string[],
) {
  assertMayManage(granted, input.role);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await lockAdmins(tx, ctx.organizationId);
    const [current] = await tx.select().from(schema.memberships).where(eq(schema.memberships.userId, userId));
    if (!current) throw notFound('Member');
    assertMayManage(granted, current.role);
    if (current.role === 'admin' && input.role !== 'admin') await assertAnotherAdmin(tx, userId);
    await tx
      .update(schema.memberships)
      .set({ role: input.role })
      .where(and(eq(schema.memberships.userId, userId), eq(schema.memberships.id, current.id)));
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'membership',
      entityId: userId,
      oldValues: { role: current.role },
      newValues: { role: input.role },
    });
    return { id: userId, role: input.role };
  });
}

/** Removes the person from this organization (their account and other memberships stay). */
export async function removeMember(ctx: ServiceContext, userId: string, granted: readonly string[]) {
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await lockAdmins(tx, ctx.organizationId);
    const [current] = await tx.select().from(schema.memberships).where(eq(schema.memberships.userId, userId));
    if (!current) throw notFound('Member');
    assertMayManage(granted, current.role);
    if (current.role === 'admin') await assertAnotherAdmin(tx, userId);
    await tx.delete(schema.memberships).where(eq(schema.memberships.id, current.id));
    // Their sessions in this organization fall back to another membership (or none) on the next request.
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'membership',
      entityId: userId,
      oldValues: { role: current.role },
    });
  });
}
