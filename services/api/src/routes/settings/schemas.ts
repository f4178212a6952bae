import { z } from '@hono/zod-openapi';

export const Settings = z
  .object({
    cart_inactivity_minutes: z.number().int(),
    updated_at: z.string().nullable(),
  })
  .openapi('Settings');
