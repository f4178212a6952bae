import { z } from 'zod';

export const PERMISSIONS = [
  'workflows.view',
  'workflows.create',
  'workflows.update',
  'workflows.delete',
  'workflows.execute',
  'executions.view',
  'executions.retry',
  'executions.cancel',
  'approvals.view',
  'approvals.decide',
  'events.publish',
  'webhooks.view',
  'webhooks.manage',
  'api_keys.view',
  'api_keys.manage',
  'audit.view',
  'credentials.view',
  'credentials.manage',
  'modules.view',
  'modules.manage',
  'settings.view',
  'settings.manage',
  'users.view',
  'users.manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** `*` grants every permission, including ones added later. */
export const PermissionGrant = z.enum([...PERMISSIONS, '*']);
export type PermissionGrant = z.infer<typeof PermissionGrant>;

export function hasPermission(granted: readonly string[], needed: Permission): boolean {
  return granted.includes('*') || granted.includes(needed);
}
