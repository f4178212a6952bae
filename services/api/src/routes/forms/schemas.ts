import { z } from '@hono/zod-openapi';

export const FormSpec = z
  .object({
    name: z.string(),
    description: z.string(),
    secrets: z.array(z.string()).openapi({ description: 'Write-only fields, answered masked' }),
    discriminator: z.string().nullable(),
    variants: z.array(z.object({ value: z.string().nullable(), schema: z.record(z.string(), z.unknown()) })),
  })
  .openapi('FormSpec');
export const FormSpecList = z.object({ data: z.array(FormSpec) }).openapi('FormSpecList');
