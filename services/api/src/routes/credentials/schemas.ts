import { z } from '@hono/zod-openapi';
import { CREDENTIAL_TYPES } from '@weft/domain';

export const Credential = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(Object.keys(CREDENTIAL_TYPES) as [string, ...string[]]),
    fields: z.record(z.string(), z.unknown()).openapi({
      description: 'Public fields as stored; secret fields masked (`••••wxyz`). A secret is never answered.',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Credential');
