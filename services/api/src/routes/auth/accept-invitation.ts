import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { AcceptInvitationInput, acceptInvitation, admitAuthRequest } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { ErrorEnvelope, jsonContent } from '../../openapi-schemas';
import { InvitationToken } from './invitation';
import { answerSession, noCredentials, requestOrigin, SignedIn } from './shared';

const route = createRoute({
  method: 'post',
  path: '/auth/invitations/{token}/accept',
  tags: ['Sign-in'],
  summary: 'Accept an invitation: a new account chooses its password, an existing one gives it',
  operationId: 'acceptInvitation',
  security: noCredentials,
  request: {
    params: InvitationToken,
    body: { content: { 'application/json': { schema: AcceptInvitationInput } }, required: true },
  },
  responses: {
    200: jsonContent(SignedIn, 'Joined and signed in (or a second factor is owed)'),
    404: jsonContent(ErrorEnvelope, 'Invalid, used or expired'),
    409: jsonContent(ErrorEnvelope, 'Already a member'),
    422: jsonContent(ErrorEnvelope, 'Validation error'),
    429: jsonContent(ErrorEnvelope, 'Too many attempts; see Retry-After'),
  },
});

export function registerAcceptInvitation(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const accounts = c.get('accounts');
    const origin = requestOrigin(c);
    await admitAuthRequest(accounts.db, 'invitation', origin.ipAddress ?? 'unknown');
    const accepted = await acceptInvitation(
      accounts,
      c.req.valid('param').token,
      c.req.valid('json'),
      origin,
    );
    return answerSession(c, accepted.session, accepted.twoFactorRequired, 200);
  });
}
