import { z } from '@hono/zod-openapi';

/** Response shapes shared by several routes; they feed the generated OpenAPI document. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      fields: z.record(z.string(), z.array(z.string())),
      request_id: z.string().openapi({
        description:
          'The id of the request (also its X-Request-Id response header): quote it to find its log lines.',
        example: '0f6c3b8e-2d4a-4c55-9a61-3f1e8f0b7c21',
      }),
    }),
  })
  .openapi('Error');

/** `meta` of every paginated list (page numbers and the total). */
const PageMeta = {
  current_page: z.number().int(),
  last_page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
};

/** `links` of every paginated list. */
const PageLinks = z.object({
  first: z.string(),
  last: z.string(),
  prev: z.string().nullable(),
  next: z.string().nullable(),
});

export function paginated<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), meta: z.object(PageMeta), links: PageLinks }).openapi(name);
}

/** The envelope of a list that also pages by keyset (`?cursor=`): `meta` adds the cursors. */
export function cursorPaginated<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      meta: z.object({
        ...PageMeta,
        total_exact: z.boolean().openapi({
          description: `False when total is PostgreSQL's estimate: exact counts stop at 10,000 rows.`,
        }),
        next_cursor: z
          .string()
          .nullable()
          .openapi({ description: 'Pass as ?cursor= for the next (older) page' }),
        prev_cursor: z.string().nullable().openapi({ description: 'Pass as ?cursor= for the previous page' }),
      }),
      links: PageLinks,
    })
    .openapi(name);
}

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});

/** The error responses every authenticated route can give, plus the route's own. */
export function errorResponses(...statuses: (404 | 409 | 422)[]) {
  const responses: Record<number, ReturnType<typeof json>> = {
    401: json(ErrorEnvelope, 'Missing, invalid or revoked API key'),
    403: json(ErrorEnvelope, 'The API key lacks the permission'),
    429: json(ErrorEnvelope, 'Rate limit exceeded; see Retry-After'),
  };
  const descriptions = { 404: 'Not found', 409: 'Conflict', 422: 'Validation error' };
  for (const status of statuses) responses[status] = json(ErrorEnvelope, descriptions[status]);
  return responses;
}

export { json as jsonContent };

export const security: Record<string, string[]>[] = [{ ApiKey: [] }, { Bearer: [] }, { Session: [] }];

export const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });

/** A path id that must be a UUID: anything else is a 422 naming `id`, before any query runs. */
export const UuidParam = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const IdempotencyHeader = z.object({
  // The rule middleware/idempotency.ts enforces (isValidIdempotencyKey), so the document says it.
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/)
    .optional()
    .openapi({
      description: 'Repeat-safe POST: the same key and body within 10 minutes replays the first response.',
    }),
});
