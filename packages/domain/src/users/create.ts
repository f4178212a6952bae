import { postgresErrorCode, schema, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { z } from 'zod';
import { hashPassword, Password, type PasswordHasher } from '../accounts/passwords';
import { ROLES } from '../accounts/roles';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError } from '../errors';
import { storedText } from '../text';

export const CreateUserInput = z.object({
  email: storedText(z.email().max(254)),
  password: Password,
  name: storedText(z.string().trim().max(200)).optional(),
  /** `member` is the old name of `editor` (before roles were admin/editor/viewer). */
  role: z
    .enum([...ROLES, 'member'])
    .default('editor')
    .transform((r) => (r === 'member' ? 'editor' : r)),
});
export type CreateUserInput = z.input<typeof CreateUserInput>;

/** `weft user create`: a user who can sign in, as a member of the context's organization. */
export async function createUser({
  ctx,
  input,
  hasher,
}: VerbArgs<CreateUserInput> & { hasher?: PasswordHasher }) {
  const parsed = CreateUserInput.parse(input);
  const passwordHash = await hashPassword(parsed.password, hasher);
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    try {
      const [row] = await tx
        .insert(schema.users)
        .values({ email: parsed.email, name: parsed.name ?? null, passwordHash })
        .returning();
      if (!row) throw new Error('insert returned no row');
      await tx
        .insert(schema.memberships)
        .values({ organizationId: ctx.organizationId, userId: row.id, role: parsed.role });
      const user = {
        id: row.id,
        email: row.email,
        name: row.name,
        role: parsed.role,
        created_at: row.createdAt.toISOString(),
      };
      await recordAudit(tx, ctx, {
        action: 'created',
        entityType: 'user',
        entityId: row.id,
        newValues: user,
      });
      return user;
    } catch (error) {
      if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
        throw new AppError('conflict', 'A user with this e-mail already exists.', {
          email: ['already taken'],
        });
      }
      throw error;
    }
  });
}
