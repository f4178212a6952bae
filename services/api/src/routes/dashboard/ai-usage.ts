import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { dashboardAiUsage } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const usageFields = {
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost_usd: z
    .number()
    .nullable()
    .openapi({ description: 'Estimated from list prices; null when a model used has no listed price.' }),
  steps: z.number().int(),
};

const AiUsage = z
  .object({
    days: z.number().int(),
    organization: z.object(usageFields),
    by_workflow: z.array(z.object({ workflow_id: z.string(), workflow_name: z.string(), ...usageFields })),
    by_model: z.array(z.object({ model: z.string(), ...usageFields })),
    top_executions: z.array(
      z.object({ execution_id: z.string(), workflow_id: z.string(), started_at: z.string(), ...usageFields }),
    ),
  })
  .openapi('DashboardAiUsage');

const route = createRoute({
  method: 'get',
  path: '/dashboard/ai-usage',
  tags: ['Executions'],
  summary:
    'AI token usage and estimated cost over the last 14 days: organization, workflows, models, executions',
  description:
    'Summed from the completed steps of action.ai.prompt and action.ai.agent in production runs. Costs are estimates from list prices per model (docs/decisions.md).',
  operationId: 'getDashboardAiUsage',
  security,
  middleware: [requirePermission('executions.view')] as const,
  responses: { 200: jsonContent(AiUsage, 'AI usage'), ...errorResponses() },
});

export function registerDashboardAiUsage(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => c.json(await dashboardAiUsage(c.get('ctx')), 200));
}
