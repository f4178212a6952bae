import { type Database, schema } from '@weft/db';
import { and, desc, eq, ne, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { randomToken } from '../random-token';
import type { Role } from './roles';
import { hashToken } from './tokens';

export interface SessionLimits {
  /** SESSION_LIFETIME: minutes without a request before the session ends. */
  idleMinutes: number;
  /** SESSION_ABSOLUTE_LIFETIME: minutes after sign-in when it ends however active. */
  absoluteMinutes: number;
}

/** What a browser request knows about its signed-in user. */
export interface WebSession {
  sessionId: string;
  userId: string;
  email: string;
  name: string | null;
  /** The organization the user works in (null: the user belongs to none any more). */
  organizationId: string | null;
  role: Role | null;
  awaitingSecondFactor: boolean;
  twoFactorEnabled: boolean;
  /** Requests of this user in the current minute (this one included), and when the minute began. */
  requestsThisMinute: number;
  windowStart: Date;
}

/**
 * Starts a session and returns the cookie's token (only its hash is stored). Every sign-in step calls
 * this for a new id: the id is rotated at sign-in and at two-factor completion (no session fixation).
 */
export async function startSession(
  db: Database,
  limits: SessionLimits,
  input: {
    userId: string;
    organizationId?: string | null;
    awaitingSecondFactor: boolean;
    ipAddress?: string;
    userAgent?: string;
  },
): Promise<{ token: string; sessionId: string }> {
  const token = randomToken();
  const sessionId = uuidv7();
  // A half-signed-in session only lives long enough to type a code.
  const minutes = input.awaitingSecondFactor ? Math.min(10, limits.absoluteMinutes) : limits.absoluteMinutes;
  await db.insert(schema.webSessions).values({
    id: sessionId,
    tokenHash: hashToken(token),
    userId: input.userId,
    currentOrganizationId: input.organizationId ?? null,
    awaitingSecondFactor: input.awaitingSecondFactor,
    ipAddress: input.ipAddress ?? null,
    userAgent: input.userAgent?.slice(0, 400) ?? null,
    expiresAt: new Date(Date.now() + minutes * 60_000),
  });
  return { token, sessionId };
}

/** The session behind a cookie, or null when it is unknown, idle too long or past its absolute limit. */
export async function authenticateSession(
  db: Database,
  token: string,
  idleMinutes: number,
): Promise<WebSession | null> {
  if (token.length > 100) return null;
  const rows = await db.execute<{
    session_id: string;
    user_id: string;
    email: string;
    name: string | null;
    organization_id: string | null;
    role: Role | null;
    awaiting_second_factor: boolean;
    two_factor_enabled: boolean;
    request_count: number;
    window_start: Date | string;
  }>(sql`select * from weft_authenticate_session(${hashToken(token)}, ${idleMinutes})`);
  const row = rows[0];
  if (!row) return null;
  return {
    sessionId: row.session_id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    organizationId: row.organization_id,
    role: row.role,
    awaitingSecondFactor: row.awaiting_second_factor,
    twoFactorEnabled: row.two_factor_enabled,
    requestsThisMinute: row.request_count,
    windowStart: new Date(row.window_start),
  };
}

/** Ends the session a cookie names, if any (signing in again replaces the browser's old session). */
export async function endSessionByToken(db: Database, token: string): Promise<void> {
  if (token.length > 100) return;
  await db.delete(schema.webSessions).where(eq(schema.webSessions.tokenHash, hashToken(token)));
}

export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.delete(schema.webSessions).where(eq(schema.webSessions.id, sessionId));
}

/** Signs the user out everywhere, or everywhere but `keep` (after a password change). */
export async function endUserSessions(db: Database, userId: string, keep?: string): Promise<number> {
  const ended = await db
    .delete(schema.webSessions)
    .where(
      keep
        ? and(eq(schema.webSessions.userId, userId), ne(schema.webSessions.id, keep))
        : eq(schema.webSessions.userId, userId),
    )
    .returning({ id: schema.webSessions.id });
  return ended.length;
}

/** The user's active sessions (never the token or its hash). */
export async function listUserSessions(db: Database, userId: string, current: string) {
  const rows = await db
    .select()
    .from(schema.webSessions)
    .where(
      and(
        eq(schema.webSessions.userId, userId),
        eq(schema.webSessions.awaitingSecondFactor, false),
        sql`${schema.webSessions.expiresAt} > now()`,
      ),
    )
    .orderBy(desc(schema.webSessions.lastSeenAt));
  return rows.map((r) => ({
    id: r.id,
    current: r.id === current,
    ip_address: r.ipAddress,
    user_agent: r.userAgent,
    created_at: r.createdAt.toISOString(),
    last_seen_at: r.lastSeenAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
  }));
}

/** Ends one of the user's own sessions; false when it is not theirs (or gone). */
export async function endOwnSession(db: Database, userId: string, sessionId: string): Promise<boolean> {
  const ended = await db
    .delete(schema.webSessions)
    .where(and(eq(schema.webSessions.id, sessionId), eq(schema.webSessions.userId, userId)))
    .returning({ id: schema.webSessions.id });
  return ended.length > 0;
}

export async function setSessionOrganization(db: Database, sessionId: string, organizationId: string) {
  await db
    .update(schema.webSessions)
    .set({ currentOrganizationId: organizationId })
    .where(eq(schema.webSessions.id, sessionId));
}

/** The organizations a user belongs to, in the order they joined. */
export async function userMemberships(db: Database, userId: string) {
  const rows = await db.execute<{ organization_id: string; organization_name: string; role: Role }>(
    sql`select * from weft_user_memberships(${userId})`,
  );
  return rows.map((r) => ({ organization_id: r.organization_id, name: r.organization_name, role: r.role }));
}
