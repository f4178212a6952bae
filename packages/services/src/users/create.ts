import { hash } from '@node-rs/argon2';
import { postgresErrorCode, schema, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { AppError } from '../errors';
import { StoredText } from '../text';

export const CreateUserInput = z.object({
  email: StoredText.pipe(z.email().max(254)),
  /** Minimum 8 (spec); at most 256 so hashing cannot be used to burn CPU. */
  password: z.string().min(8, 'The password must be at least 8 characters.').max(256),
  name: StoredText.pipe(z.string().trim().max(200)).optional(),
  role: z.enum(['admin', 'member']).default('member'),
});
export type CreateUserInput = z.input<typeof CreateUserInput>;

export async function createUser({ ctx, input }: VerbArgs<CreateUserInput>) {
  const parsed = CreateUserInput.parse(input);
  const passwordHash = await hash(parsed.password); // argon2id with the library's OWASP-level defaults
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    try {
      const [row] = await tx
        .insert(schema.users)
        .values({
          organizationId: ctx.organizationId,
          email: parsed.email,
          name: parsed.name ?? null,
          passwordHash,
          role: parsed.role,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      const user = {
        id: row.id,
        email: row.email,
        name: row.name,
        role: row.role,
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
