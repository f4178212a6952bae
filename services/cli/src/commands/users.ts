import {
  AppError,
  createUser,
  findUserByEmail,
  issueResetLink,
  isUuid,
  listMembers,
  notFound,
  PERMISSIONS,
  removeMember,
  type ServiceContext,
} from '@weft/domain/admin';
import { withAppDatabase } from '../database';
import { printResult } from '../output';
import { readPassword } from '../password-input';

const context = (db: ServiceContext['db'], organizationId: string): ServiceContext => ({
  db,
  organizationId,
  actor: {},
});

export async function userCreateCommand(options: {
  org: string;
  email: string;
  passwordStdin: boolean;
  role: 'admin' | 'editor' | 'viewer';
  json: boolean;
}) {
  const secret = await readPassword({ fromStdin: options.passwordStdin });
  const user = await withAppDatabase(
    (db) =>
      createUser({
        ctx: context(db, options.org),
        input: { email: options.email, password: secret, role: options.role },
      }),
    { org: options.org },
  );
  printResult(options.json, user, [`User created: ${user.email} (${user.role})`, `id: ${user.id}`]);
}

/** `weft user list`: the organization's members, oldest first. */
export async function userListCommand(options: { org: string; json: boolean }) {
  const users = await withAppDatabase((db) => listMembers(context(db, options.org)), {
    org: options.org,
    readOnly: true,
  });
  printResult(options.json, { users }, [
    users.length === 0 ? 'No users.' : `${users.length} user(s):`,
    ...users.map(
      (u) => `  ${u.id}  ${u.email}  ${u.role}${u.two_factor_enabled ? '  2FA' : ''}  joined ${u.joined_at}`,
    ),
  ]);
}

/**
 * `weft user revoke`: removes the user from the organization (the operator acts with every
 * permission; the last admin still cannot be removed). Their account and other memberships stay.
 */
export async function userRevokeCommand(options: { org: string; id: string; json: boolean }) {
  if (!isUuid(options.id)) throw notFound('Member');
  await withAppDatabase((db) => removeMember(context(db, options.org), options.id, PERMISSIONS), {
    org: options.org,
  });
  printResult(options.json, { id: options.id, revoked: true }, [
    `User ${options.id} removed from the organization`,
  ]);
}

/**
 * `weft user reset-link`: prints a fresh single-use reset link (60 minutes) for a member of the
 * organization, for the operator to hand over; reset links are never written to a log. An unknown
 * organization or user is a usage error: one line, exit code 2.
 */
export async function userResetLinkCommand(options: { org: string; email: string; json: boolean }) {
  const link = await withAppDatabase(async (db, env) => {
    const user = await findUserByEmail({ db }, options.email);
    if (!user) return undefined;
    return issueResetLink({ db, siteUrl: env.APP_URL }, context(db, options.org), user.id, {
      granted: ['*'],
      otherOrganizations: 'allow',
    }).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'not_found') return undefined;
      throw error;
    });
  });
  if (!link) {
    process.stderr.write(`weft: no user ${options.email} in organization ${options.org}\n`);
    process.exitCode = 2;
    return;
  }
  printResult(options.json, link, [
    `Reset link for ${options.email} (single use, valid ${link.expires_in_minutes} minutes):`,
    link.reset_url,
  ]);
}
