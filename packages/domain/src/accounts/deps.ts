import { type Database, withTenant } from '@weft/db';
import { type AuditAction, type AuditEntity, recordAudit } from '../audit-logs/record';
import type { SecretBox } from '../encryption';
import { openModuleConfig } from '../modules/module-store';
import { sendMail } from '../modules/send-mail';
import type { CaptchaSettings } from './captcha';
import type { PasswordHasher } from './passwords';
import type { SessionLimits } from './sessions';

/** What the sign-in and account verbs need beyond the request. */
export interface AccountsDeps {
  db: Database;
  /** Encrypts TOTP secrets (the APP_KEY SecretBox, as for every other stored secret). */
  secrets: SecretBox;
  sessions: SessionLimits;
  hasher: PasswordHasher;
  captcha?: CaptchaSettings;
  registrationEnabled: boolean;
  /** APP_URL: links in invitation and reset e-mails. */
  siteUrl: string;
  ssrfAllowlist: readonly string[];
  /**
   * Warnings of account verbs that have no caller to answer (a reset mail that could not go out).
   * Never given a link or token: reset and invitation links reach people by e-mail or from an admin.
   */
  logWarning?: (fields: Record<string, unknown>, message: string) => void;
}

export interface RequestOrigin {
  ipAddress?: string;
  userAgent?: string;
}

/**
 * Sends a short text e-mail through the first of `organizationIds` whose e-mail module is set up.
 * False when none is (the caller then shows or logs the link instead).
 */
export async function mailThroughModule(
  deps: AccountsDeps,
  organizationIds: readonly string[],
  message: { to: string; subject: string; text: string },
): Promise<boolean> {
  for (const organizationId of organizationIds) {
    const module = await openModuleConfig(deps.db, deps.secrets, organizationId, 'email');
    if (!module) continue;
    await sendMail(
      module,
      {
        to: [message.to],
        cc: [],
        bcc: [],
        subject: message.subject,
        text: message.text,
        messageId: `<${crypto.randomUUID()}@weft>`,
      },
      deps.ssrfAllowlist,
    );
    return true;
  }
  return false;
}

/** One audit row per organization (a sign-in event concerns every organization the user is in). */
export async function auditAccountEvent(
  db: Database,
  organizationIds: readonly string[],
  event: {
    userId: string;
    origin: RequestOrigin;
    action: AuditAction;
    entityType?: AuditEntity;
    entityId?: string;
    newValues?: Record<string, unknown>;
  },
) {
  for (const organizationId of organizationIds) {
    const ctx = {
      db,
      organizationId,
      actor: { userId: event.userId, ipAddress: event.origin.ipAddress },
    };
    await withTenant(db, organizationId, (tx) =>
      recordAudit(tx, ctx, {
        action: event.action,
        entityType: event.entityType ?? 'user',
        entityId: event.entityId ?? event.userId,
        newValues: event.newValues,
      }),
    );
  }
}
