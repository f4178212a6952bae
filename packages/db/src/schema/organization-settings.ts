import { integer, pgTable, uuid } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns';
import { organizations } from './organizations';

/** Per-organization settings (PUT /settings); a missing row means every default. */
export const organizationSettings = pgTable('organization_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** Minutes without a cart event after which cart.abandoned fires. */
  cartInactivityMinutes: integer('cart_inactivity_minutes').notNull().default(60),
  updatedAt: updatedAt(),
});
