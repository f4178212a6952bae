import { type Database, schema, withTenant } from '@weft/db';
import { and, eq, sql } from 'drizzle-orm';
import { isUuid } from '../text';
import { sha256Hex } from './open';
import { presentApproval } from './present';

/** Links of an approval without a deadline stop working after this many days. */
export const APPROVAL_LINK_DAYS = 30;

/**
 * `{site_url}/approvals/link/<approval id>/<token>`: outside the signed-in app and /api/v1 (it takes
 * no session). Its GET only shows the approval and a form; the form's POST decides.
 */
export function approvalLinkUrl(siteUrl: string, approvalId: string, token: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/api/approval-links/${approvalId}/${token}`;
}

/**
 * The approval a link names, when the token is one of its links and has not expired (the approval's
 * deadline, else APPROVAL_LINK_DAYS after it was asked for): with its organization and the recipient
 * the link was sent to. Null for anything else, without saying which part was wrong.
 */
export async function findApprovalByLink(db: Database, approvalId: string, token: string) {
  if (!isUuid(approvalId) || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const found = await db.execute<{ org: string | null }>(
    sql`select weft_approval_organization(${approvalId}::uuid) as org`,
  );
  const organizationId = found[0]?.org;
  if (!organizationId) return null;
  const a = schema.approvals;
  const [row] = await withTenant(db, organizationId, (tx) =>
    tx
      .select()
      .from(a)
      .where(and(eq(a.id, approvalId), eq(a.organizationId, organizationId))),
  );
  const recipient = row?.linkTokens[sha256Hex(token)];
  if (!row || recipient === undefined) return null;
  const expiresAt = row.expiresAt ?? new Date(row.createdAt.getTime() + APPROVAL_LINK_DAYS * 24 * 3_600_000);
  if (row.status === 'pending' && expiresAt.getTime() < Date.now()) return null;
  return { organizationId, recipient, approval: presentApproval(row) };
}
