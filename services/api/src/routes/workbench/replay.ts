import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { replayExecution } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, IdParam, jsonContent, security } from '../../openapi-schemas';
import { StartedExecution } from './schemas';

const route = createRoute({
  method: 'post',
  operationId: 'replayExecution',
  path: '/executions/{id}/replay',
  tags: ['Executions'],
  summary: "Replay (what-if): the current graph, or `version`, on this execution's trigger",
  description:
    'A new `mode: test` execution with `replay_of`. Side-effect steps (HTTP, chat, e-mail, AI, event ' +
    "publish, child workflows, delays and waits) never call out: they take the original's recorded " +
    'output (step `replayed: true`), or their pin, or fail with `replay_no_recording`. Computed steps run. ' +
    '422: an unknown `version`, or a graph with a loop inside a loop body (not replayable).',
  security,
  middleware: [requirePermission('workflows.execute'), idempotent] as const,
  request: {
    params: IdParam,
    headers: IdempotencyHeader,
    body: {
      content: {
        'application/json': {
          schema: z
            .object({
              version: z
                .number()
                .int()
                .positive()
                .optional()
                .openapi({ description: 'A saved version of the workflow; default: the current one' }),
            })
            .openapi('ReplayRequest'),
        },
      },
      required: false,
    },
  },
  responses: {
    202: jsonContent(StartedExecution, 'Accepted'),
    ...errorResponses(404, 422),
  },
});

export function registerReplayExecution(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const result = await replayExecution({
      ctx: c.get('ctx'),
      input: { id: c.req.valid('param').id, version: body?.version },
      engine: c.get('engine'),
    });
    return c.json(result, 202);
  });
}
