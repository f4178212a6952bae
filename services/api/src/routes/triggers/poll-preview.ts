import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { previewPoll } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const PollPreview = z
  .object({
    status: z.enum(['ok', 'error']),
    item_count: z.number().int().optional(),
    items: z
      .array(z.object({ key: z.string(), item: z.unknown() }))
      .optional()
      .openapi({ description: 'The first 5 items with the dedup key each would be remembered by' }),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .openapi('PollPreview');

const route = createRoute({
  method: 'post',
  operationId: 'previewPollingTrigger',
  path: '/triggers/polling/preview',
  tags: ['Workflows'],
  summary: 'Fetch a polling trigger’s URL once and show the items it finds (nothing stored, nothing run)',
  security,
  middleware: [requirePermission('workflows.update')] as const,
  request: {
    body: {
      content: {
        'application/json': {
          schema: z.object({ trigger_config: z.record(z.string(), z.unknown()) }).openapi({
            description: 'The polling trigger_config as a workflow would save it',
          }),
        },
      },
      required: true,
    },
  },
  responses: { 200: jsonContent(PollPreview, 'What one poll finds'), ...errorResponses(422) },
});

export function registerPollPreview(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const ctx = c.get('ctx');
    const { http, secrets } = c.get('providers')();
    const preview = await previewPoll(
      { db: ctx.db, http, secrets },
      ctx.organizationId,
      c.req.valid('json').trigger_config,
    );
    return c.json(preview, 200);
  });
}
