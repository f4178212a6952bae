import { schema, withTenant } from '@weft/db';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { recordAudit } from '../audit-logs/record';
import { DEFAULT_CART_INACTIVITY_MINUTES } from '../carts/cart-activity';
import type { ServiceContext, VerbArgs } from '../context';

/** PUT /settings: every field optional, only given ones change. 43200 minutes = 30 days. */
export const SettingsInput = z
  .object({
    cart_inactivity_minutes: z
      .number({ error: 'must be a whole number of minutes' })
      .int('must be a whole number of minutes')
      .min(1, 'must be at least 1 minute')
      .max(43_200, 'must be at most 43200 minutes (30 days)')
      .optional(),
  })
  .strict();
export type SettingsInput = z.infer<typeof SettingsInput>;

type SettingsRow = typeof schema.organizationSettings.$inferSelect;

function presentSettings(row: SettingsRow | undefined) {
  return {
    cart_inactivity_minutes: row?.cartInactivityMinutes ?? DEFAULT_CART_INACTIVITY_MINUTES,
    /** Null until the organization changes a setting (every value is then a default). */
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}
export type Settings = ReturnType<typeof presentSettings>;

/** The organization's settings; a missing row means every default. */
export async function getSettings({ ctx }: { ctx: ServiceContext }): Promise<Settings> {
  const s = schema.organizationSettings;
  const [row] = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx.select().from(s).where(eq(s.organizationId, ctx.organizationId)),
  );
  return presentSettings(row);
}

/**
 * Changes the given settings (audit logged). A new cart inactivity period applies to each cart from
 * its next cart event: a running timer keeps the period it was started with.
 */
export async function updateSettings({ ctx, input }: VerbArgs<SettingsInput>): Promise<Settings> {
  const s = schema.organizationSettings;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [existing] = await tx
      .select()
      .from(s)
      .where(eq(s.organizationId, ctx.organizationId))
      .for('update');
    const changes = {
      ...(input.cart_inactivity_minutes !== undefined && {
        cartInactivityMinutes: input.cart_inactivity_minutes,
      }),
    };
    const [row] = await tx
      .insert(s)
      .values({ organizationId: ctx.organizationId, ...changes })
      .onConflictDoUpdate({ target: s.organizationId, set: { ...changes, updatedAt: sql`now()` } })
      .returning();
    const settings = presentSettings(row);
    const before = presentSettings(existing);
    await recordAudit(tx, ctx, {
      action: 'updated',
      entityType: 'settings',
      entityId: ctx.organizationId,
      oldValues: { cart_inactivity_minutes: before.cart_inactivity_minutes },
      newValues: { cart_inactivity_minutes: settings.cart_inactivity_minutes },
    });
    return settings;
  });
}
