import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { dashboardSummary } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const Summary = z
  .object({
    days: z.array(z.object({ date: z.string(), by_status: z.record(z.string(), z.number().int()) })),
    active_workflows_by_trigger: z.record(z.string(), z.number().int()),
  })
  .openapi('DashboardSummary');

const route = createRoute({
  method: 'get',
  path: '/dashboard',
  tags: ['Executions'],
  summary:
    'Production executions per day and status over the last 14 days (UTC), and active workflows per trigger type',
  description: 'Test runs and replays (`mode: test`) are not counted.',
  operationId: 'getDashboard',
  security,
  middleware: [requirePermission('executions.view')] as const,
  responses: { 200: jsonContent(Summary, 'Summary'), ...errorResponses() },
});

export function registerDashboard(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json(await dashboardSummary(c.get('ctx')), 200));
}
