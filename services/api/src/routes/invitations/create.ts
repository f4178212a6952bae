import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { AppError, CreateInvitationInput, createInvitation, mayGrantRole } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { idempotent } from '../../middleware/idempotency';
import { requirePermission } from '../../middleware/require-permission';
import { errorResponses, IdempotencyHeader, jsonContent, security } from '../../openapi-schemas';
import { Invitation } from './list';

const CreatedInvitation = Invitation.extend({
  invite_url: z.string().openapi({ description: 'The single-use link; answered only here.' }),
  emailed: z.boolean().openapi({ description: "Sent through the organization's e-mail module." }),
}).openapi('CreatedInvitation');

const route = createRoute({
  method: 'post',
  path: '/invitations',
  tags: ['Users'],
  summary: 'Invite someone by e-mail with a role (a single-use link valid 7 days)',
  operationId: 'createInvitation',
  security,
  middleware: [requirePermission('users.manage'), idempotent] as const,
  request: {
    headers: IdempotencyHeader,
    body: { content: { 'application/json': { schema: CreateInvitationInput } }, required: true },
  },
  responses: { 201: jsonContent(CreatedInvitation, 'Invited'), ...errorResponses(409, 422) },
});

export function registerCreateInvitation(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const input = c.req.valid('json');
    if (!mayGrantRole(c.get('auth').permissions, input.role)) {
      throw new AppError(
        'forbidden',
        `Only a caller holding every permission of ${input.role} may invite one.`,
      );
    }
    return c.json(await createInvitation(c.get('accounts'), c.get('ctx'), input), 201);
  });
}
