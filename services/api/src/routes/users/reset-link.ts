import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { issueResetLink } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, jsonContent, security, UuidParam } from '../../openapi-schemas';

const ResetLink = z
  .object({
    reset_url: z.string().openapi({ description: 'The single-use link; answered only here, never logged.' }),
    expires_in_minutes: z.number().int(),
  })
  .openapi('ResetLink');

const route = createRoute({
  method: 'post',
  path: '/users/{id}/reset-link',
  tags: ['Users'],
  summary: 'Issue a password reset link for a member, to hand over (no e-mail module to send it)',
  description:
    'A fresh single-use link valid 60 minutes; earlier links stay valid until used or expired. Refused (409) for a member of other organizations too.',
  operationId: 'issueUserResetLink',
  security,
  middleware: [requirePermission('users.manage')] as const,
  request: { params: UuidParam },
  responses: { 201: jsonContent(ResetLink, 'Issued'), ...errorResponses(404, 409) },
});

export function registerIssueResetLink(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const link = await issueResetLink(c.get('accounts'), c.get('ctx'), c.req.valid('param').id, {
      granted: c.get('auth').permissions,
      otherOrganizations: 'refuse',
    });
    return c.json(link, 201);
  });
}
