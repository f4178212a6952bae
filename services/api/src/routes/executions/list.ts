import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import {
  EXECUTION_MODES,
  EXECUTION_STATUS_FILTERS,
  listExecutions,
  pageQuery,
  paginateWithCursors,
} from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { cursorPaginated, errorResponses, jsonContent, security } from '../../openapi-schemas';
import { ExecutionSummary } from './schemas';

const route = createRoute({
  method: 'get',
  operationId: 'listExecutions',
  path: '/executions',
  tags: ['Executions'],
  summary: 'List executions (status `completed` means success or partial)',
  description:
    'Newest first. Page by `page` (offset) or by `cursor` (keyset: the same speed at any depth): ' +
    '`links.next`/`links.prev` and `meta.next_cursor`/`meta.prev_cursor` carry the cursors. ' +
    '`meta.total` is exact up to 10,000 rows and an estimate above (`meta.total_exact: false`).',
  security,
  middleware: [requirePermission('executions.view')] as const,
  request: {
    query: z.object({
      ...pageQuery(15, 100),
      // No default here: with a cursor, page must be absent (the verb refuses both at once).
      page: pageQuery(15, 100)
        .page.unwrap()
        .optional()
        .openapi({ description: 'Page number, default 1 (offset paging); not with cursor' }),
      cursor: z
        .string()
        .max(400)
        .optional()
        .openapi({ description: 'A `next_cursor` or `prev_cursor` from an earlier page; opaque' }),
      workflow_id: z.uuid().optional(),
      status: z.enum(EXECUTION_STATUS_FILTERS).optional(),
      mode: z
        .enum(EXECUTION_MODES)
        .optional()
        .openapi({ description: '`test`: test runs and replays only; `production`: the others' }),
      replay_of: z.uuid().optional().openapi({ description: 'Replays of this execution only' }),
      q: z.string().trim().min(1).max(200).optional().openapi({
        description:
          'Search: a whole execution id finds that execution; other text is matched (any case) in the trigger data and the event name',
      }),
      from: z.iso.datetime({ offset: true }).optional(),
      to: z.iso.datetime({ offset: true }).optional(),
    }),
  },
  responses: {
    200: jsonContent(cursorPaginated(ExecutionSummary, 'ExecutionList'), 'Executions'),
    ...errorResponses(422),
  },
});

export function registerListExecutions(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const q = c.req.valid('query');
    const result = await listExecutions({
      ctx: c.get('ctx'),
      input: {
        perPage: q.per_page,
        page: q.page,
        cursor: q.cursor,
        workflowId: q.workflow_id,
        status: q.status,
        mode: q.mode,
        replayOf: q.replay_of,
        search: q.q,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      },
      temporalUiUrl: c.get('temporalUiUrl'),
    });
    const filters = {
      workflow_id: q.workflow_id,
      status: q.status,
      mode: q.mode,
      replay_of: q.replay_of,
      q: q.q,
      from: q.from,
      to: q.to,
    };
    const page = {
      current: result.page,
      perPage: q.per_page,
      total: result.total,
      totalExact: result.totalExact,
      nextCursor: result.nextCursor,
      prevCursor: result.prevCursor,
    };
    return c.json(paginateWithCursors(result.rows, page, '/api/v1/executions', filters), 200);
  });
}
