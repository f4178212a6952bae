import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { describeInvitation } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { noCredentials } from './shared';

export const InvitationToken = z.object({
  token: z
    .string()
    .max(100)
    .openapi({ param: { name: 'token', in: 'path' } }),
});

const route = createRoute({
  method: 'get',
  path: '/auth/invitations/{token}',
  tags: ['Sign-in'],
  summary: 'What an invitation link offers (organization, e-mail, role) before it is accepted',
  operationId: 'describeInvitation',
  security: noCredentials,
  request: { params: InvitationToken },
  responses: {
    200: jsonContent(
      z
        .object({
          organization_name: z.string(),
          email: z.string(),
          role: z.enum(['admin', 'editor', 'viewer']),
        })
        .openapi('InvitationPreview'),
      'The invitation',
    ),
    404: jsonContent(ErrorEnvelope, 'Invalid, used or expired'),
  },
});

export function registerDescribeInvitation(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) =>
    c.json(await describeInvitation(c.get('accounts'), c.req.valid('param').token), 200),
  );
}
