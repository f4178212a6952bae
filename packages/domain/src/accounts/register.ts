import { postgresErrorCode, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { AppError } from '../errors';
import type { AccountsDeps, RequestOrigin } from './deps';
import { Email, insertOrganizationWithAdmin, PersonName } from './install';
import { hashPassword, Password } from './passwords';
import { startSession } from './sessions';

export const RegisterInput = z.object({
  name: PersonName,
  email: Email,
  password: Password,
  organization_name: z.string().trim().min(1).max(200).optional(),
  captcha_token: z.string().max(4096).optional(),
});

/**
 * Open sign-up (REGISTRATION_ENABLED): a new user with an organization of their own, as its admin.
 * Off by default: after the wizard, people join by invitation.
 */
export async function register(
  deps: AccountsDeps,
  input: z.infer<typeof RegisterInput>,
  origin: RequestOrigin,
) {
  if (!deps.registrationEnabled)
    throw new AppError('not_found', 'Sign-up is off; ask an admin for an invitation.');
  const passwordHash = await hashPassword(input.password, deps.hasher);
  const organizationId = uuidv7();
  const userId = uuidv7();
  try {
    await withTenant(deps.db, organizationId, (tx) =>
      insertOrganizationWithAdmin(
        tx,
        deps,
        {
          organizationId,
          organizationName: input.organization_name ?? `${input.name}'s organization`,
          userId,
          email: input.email,
          name: input.name,
          passwordHash,
          via: 'sign-up',
        },
        origin,
      ),
    );
  } catch (error) {
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      throw new AppError('conflict', 'An account with this e-mail already exists; sign in instead.', {
        email: ['An account with this e-mail already exists.'],
      });
    }
    throw error;
  }
  return startSession(deps.db, deps.sessions, {
    userId,
    organizationId,
    awaitingSecondFactor: false,
    ...origin,
  });
}
