import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { AUDIT_ACTIONS, listAuditLogs, pageQuery, paginate, storedText } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, paginated, security } from '../../openapi-schemas';

const AuditLog = z
  .object({
    id: z.string(),
    user_id: z.string().nullable(),
    api_key_id: z.string().nullable(),
    ip_address: z.string().nullable(),
    action: z.string(),
    entity_type: z.string(),
    entity_id: z.string(),
    old_values: z.unknown(),
    new_values: z.unknown(),
    created_at: z.string(),
  })
  .openapi('AuditLog');

const route = createRoute({
  method: 'get',
  operationId: 'listAuditLogs',
  path: '/audit-logs',
  tags: ['Audit logs'],
  summary: 'Read the audit trail',
  security,
  middleware: [requirePermission('audit.view')] as const,
  request: {
    query: z.object({
      ...pageQuery(25, 100),
      user_id: z.uuid().optional(),
      action: z.enum([...AUDIT_ACTIONS, 'create', 'update', 'delete', 'revoke']).optional(),
      entity_type: storedText(z.string().max(64)).optional(),
      from: z.iso.datetime({ offset: true }).optional(),
      to: z.iso.datetime({ offset: true }).optional(),
    }),
  },
  responses: {
    200: jsonContent(paginated(AuditLog, 'AuditLogList'), 'Audit records'),
    ...errorResponses(422),
  },
});

export function registerListAuditLogs(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const q = c.req.valid('query');
    const page = { page: q.page, perPage: q.per_page };
    const { rows, total } = await listAuditLogs({
      ctx: c.get('ctx'),
      input: {
        ...page,
        userId: q.user_id,
        action: q.action,
        entityType: q.entity_type,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
      },
    });
    const filters = {
      user_id: q.user_id,
      action: q.action,
      entity_type: q.entity_type,
      from: q.from,
      to: q.to,
    };
    return c.json(paginate(rows, total, page, '/api/v1/audit-logs', filters), 200);
  });
}
