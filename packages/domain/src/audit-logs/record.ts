import { schema, type Tx } from '@weft/db';
import type { ServiceContext } from '../context';

export const AUDIT_ACTIONS = [
  'created',
  'updated',
  'deleted',
  'revoked',
  'login',
  'login_failed',
  'logout',
  'two_factor_failed',
  'two_factor_enabled',
  'two_factor_disabled',
  'password_changed',
  'password_reset',
  'password_reset_link',
  'sessions_ended',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditEntity =
  | 'workflow'
  | 'api_key'
  | 'webhook'
  | 'credential'
  | 'module'
  | 'user'
  | 'invitation'
  | 'membership'
  | 'organization'
  | 'settings'
  | 'approval'
  | 'execution';

type Values = Record<string, unknown>;

/** For updates only the keys that changed are kept on both sides: the JSON diff of the audit trail. */
export function diffValues(oldValues: Values, newValues: Values): { old: Values; new: Values } {
  const before: Values = {};
  const after: Values = {};
  for (const key of new Set([...Object.keys(oldValues), ...Object.keys(newValues)])) {
    if (JSON.stringify(oldValues[key]) !== JSON.stringify(newValues[key])) {
      before[key] = oldValues[key] ?? null;
      after[key] = newValues[key] ?? null;
    }
  }
  return { old: before, new: after };
}

/** Writes one audit row in the caller's transaction, so the trail and the change commit together. */
export async function recordAudit(
  tx: Tx,
  ctx: ServiceContext,
  entry: {
    action: AuditAction;
    entityType: AuditEntity;
    entityId: string;
    oldValues?: Values;
    newValues?: Values;
  },
): Promise<void> {
  let oldValues = entry.oldValues ?? null;
  let newValues = entry.newValues ?? null;
  if (entry.action === 'updated' && oldValues && newValues) {
    const diff = diffValues(oldValues, newValues);
    oldValues = diff.old;
    newValues = diff.new;
  }
  await tx.insert(schema.auditLogs).values({
    organizationId: ctx.organizationId,
    userId: ctx.actor.userId ?? null,
    apiKeyId: ctx.actor.apiKeyId ?? null,
    ipAddress: ctx.actor.ipAddress ?? null,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    oldValues,
    newValues,
  });
}
