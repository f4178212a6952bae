import { type Database, schema, type Tx, withTenant } from '@weft/db';
import { sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import { AppError } from '../errors';
import { storedText } from '../text';
import type { AccountsDeps, RequestOrigin } from './deps';
import { hashPassword, Password } from './passwords';
import { startSession } from './sessions';

export const Email = storedText(z.email('Enter a valid e-mail address.').max(254));
export const PersonName = storedText(z.string().trim().min(1).max(200));

export const InstallInput = z.object({
  organization_name: storedText(z.string().trim().min(1, 'Name the organization.').max(200)),
  name: PersonName,
  email: Email,
  password: Password,
});

/** The wizard is open until the first user exists, and closed for good after. */
export async function installationOpen(db: Database): Promise<boolean> {
  const rows = await db.execute<{ open: boolean }>(sql`select not exists (select 1 from users) as open`);
  return rows[0]?.open === true;
}

/** Serialises wizard posts: two racing installs create one admin. */
const INSTALL_LOCK = sql`select pg_advisory_xact_lock(hashtext('weft.install'))`;

/**
 * The installation wizard: the first organization and its admin, signed in. Answers 409 (creating
 * nothing) once any user exists.
 */
/**
 * A new organization with its first admin, in the caller's tenancy transaction (entered for the new
 * organization): the wizard and open sign-up both start this way.
 */
export async function insertOrganizationWithAdmin(
  tx: Tx,
  deps: Pick<AccountsDeps, 'db'>,
  account: {
    organizationId: string;
    organizationName: string;
    userId: string;
    email: string;
    name: string;
    passwordHash: string;
    via: string;
  },
  origin: RequestOrigin,
) {
  const { organizationId, userId } = account;
  await tx.insert(schema.organizations).values({ id: organizationId, name: account.organizationName });
  await tx
    .insert(schema.users)
    .values({ id: userId, email: account.email, name: account.name, passwordHash: account.passwordHash });
  await tx.insert(schema.memberships).values({ organizationId, userId, role: 'admin' });
  await recordAudit(
    tx,
    { db: deps.db, organizationId, actor: { userId, ipAddress: origin.ipAddress } },
    {
      action: 'created',
      entityType: 'user',
      entityId: userId,
      newValues: { email: account.email, name: account.name, role: 'admin', via: account.via },
    },
  );
}

export async function install(
  deps: AccountsDeps,
  input: z.input<typeof InstallInput>,
  origin: RequestOrigin,
) {
  const parsed = InstallInput.parse(input);
  const passwordHash = await hashPassword(parsed.password, deps.hasher);
  const organizationId = uuidv7();
  const userId = uuidv7();
  const created = await withTenant(deps.db, organizationId, async (tx) => {
    await tx.execute(INSTALL_LOCK);
    const [taken] = await tx.execute<{ n: number }>(sql`select count(*)::int as n from users`);
    if ((taken?.n ?? 0) > 0) return false;
    await insertOrganizationWithAdmin(
      tx,
      deps,
      {
        organizationId,
        organizationName: parsed.organization_name,
        userId,
        email: parsed.email,
        name: parsed.name,
        passwordHash,
        via: 'installation wizard',
      },
      origin,
    );
    return true;
  });
  if (!created) throw new AppError('conflict', 'Weft is already installed; sign in instead.');
  const session = await startSession(deps.db, deps.sessions, {
    userId,
    organizationId,
    awaitingSecondFactor: false,
    ...origin,
  });
  return { session, userId, organizationId };
}
