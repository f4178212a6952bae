import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { listEventTypes } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const EventType = z
  .object({
    name: z.string(),
    category: z.string(),
    description: z.string().nullable(),
    example_payload: z.record(z.string(), z.unknown()).nullable(),
    custom: z
      .boolean()
      .openapi({ description: 'Published by the organization, not in the built-in catalog' }),
    first_seen_at: z.string().nullable(),
    last_seen_at: z.string().nullable(),
  })
  .openapi('EventType');

const route = createRoute({
  method: 'get',
  operationId: 'listEventTypes',
  path: '/event-types',
  tags: ['Events'],
  summary: "Trigger events: the built-in catalog, then the organization's own event names seen so far",
  security,
  middleware: [requirePermission('workflows.view')] as const,
  responses: {
    200: jsonContent(z.object({ data: z.array(EventType) }), 'Event types'),
    ...errorResponses(),
  },
});

export function registerListEventTypes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json(await listEventTypes({ ctx: c.get('ctx') }), 200));
}
