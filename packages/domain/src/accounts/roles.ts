import { schema } from '@weft/db';
import { PERMISSIONS, type Permission } from '../permissions';

export const ROLES = schema.ROLES;
export type Role = (typeof ROLES)[number];

/** What only admins may do (DESIGN §7): keys, module set-up, the audit trail, people. */
const ADMIN_ONLY = new Set<Permission>([
  'api_keys.view',
  'api_keys.manage',
  'modules.manage',
  'audit.view',
  'users.manage',
]);

/**
 * The API's permission names each web role grants, so one check (hasPermission) serves API keys and
 * sessions alike: admin everything, editor all but the admin-only ones, viewer the `.view` ones but
 * the admin-only ones.
 */
export const ROLE_PERMISSIONS: Record<Role, readonly string[]> = {
  admin: ['*'],
  editor: PERMISSIONS.filter((p) => !ADMIN_ONLY.has(p)),
  viewer: PERMISSIONS.filter((p) => p.endsWith('.view') && !ADMIN_ONLY.has(p)),
};

/**
 * Whether a caller holding `granted` may give someone `role`: only when the role's permissions are
 * all the caller's own (as an API key can create only keys narrower than itself). A key holding
 * just `users.manage` therefore cannot mint an admin, or an editor.
 */
export function mayGrantRole(granted: readonly string[], role: Role): boolean {
  if (granted.includes('*')) return true;
  const needed = ROLE_PERMISSIONS[role];
  return !needed.includes('*') && needed.every((p) => granted.includes(p));
}
