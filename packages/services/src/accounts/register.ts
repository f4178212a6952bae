import { postgresErrorCode, schema, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import { AppError } from '../errors';
import type { AccountsDeps, RequestOrigin } from './deps';
import { Email, PersonName } from './install';
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
    await withTenant(deps.db, organizationId, async (tx) => {
      await tx
        .insert(schema.organizations)
        .values({ id: organizationId, name: input.organization_name ?? `${input.name}'s organization` });
      await tx
        .insert(schema.users)
        .values({ id: userId, email: input.email, name: input.name, passwordHash });
      await tx.insert(schema.memberships).values({ organizationId, userId, role: 'admin' });
      await recordAudit(
        tx,
        { db: deps.db, organizationId, actor: { userId, ipAddress: origin.ipAddress } },
        {
          action: 'created',
          entityType: 'user',
          entityId: userId,
          newValues: { email: input.email, name: input.name, role: 'admin', via: 'sign-up' },
        },
      );
    });
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
