import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env';
import { registerCreateInvitation } from '../invitations/create';
import { registerListInvitations } from '../invitations/list';
import { registerRevokeInvitation } from '../invitations/revoke';
import { registerChangePassword } from '../me/change-password';
import { registerEndAllSessions } from '../me/end-all-sessions';
import { registerEndSession } from '../me/end-session';
import { registerGetMe } from '../me/get';
import { registerListSessions } from '../me/list-sessions';
import { registerSwitchOrganization } from '../me/switch-organization';
import { registerConfirmTwoFactor } from '../me/two-factor-confirm';
import { registerDisableTwoFactor } from '../me/two-factor-disable';
import { registerBeginTwoFactor } from '../me/two-factor-setup';
import { registerListUsers } from '../users/list';
import { registerRemoveUser } from '../users/remove';
import { registerIssueResetLink } from '../users/reset-link';
import { registerUpdateUser } from '../users/update';
import { registerAcceptInvitation } from './accept-invitation';
import { registerAuthConfig } from './config';
import { registerForgotPassword } from './forgot-password';
import { registerDescribeInvitation } from './invitation';
import { registerLogin } from './login';
import { registerLogout } from './logout';
import { registerRegister } from './register';
import { registerResetPassword } from './reset-password';
import { registerInstall } from './setup';
import { registerLoginTwoFactor } from './two-factor';

/** Sign-in routes: no session or key yet (registered before authentication). */
export function registerPublicAuthRoutes(app: OpenAPIHono<AppEnv>, trustedProxyHops: number) {
  registerAuthConfig(app);
  registerInstall(app, trustedProxyHops);
  registerLogin(app, trustedProxyHops);
  registerLoginTwoFactor(app, trustedProxyHops);
  registerRegister(app, trustedProxyHops);
  registerForgotPassword(app, trustedProxyHops);
  registerResetPassword(app, trustedProxyHops);
  registerDescribeInvitation(app);
  registerAcceptInvitation(app, trustedProxyHops);
}

/** The signed-in user's account, and the organization's people (after authentication). */
export function registerAccountRoutes(app: OpenAPIHono<AppEnv>) {
  registerLogout(app);
  registerGetMe(app);
  registerSwitchOrganization(app);
  registerChangePassword(app);
  registerBeginTwoFactor(app);
  registerConfirmTwoFactor(app);
  registerDisableTwoFactor(app);
  registerListSessions(app);
  registerEndSession(app);
  registerEndAllSessions(app);
  registerListUsers(app);
  registerUpdateUser(app);
  registerRemoveUser(app);
  registerIssueResetLink(app);
  registerListInvitations(app);
  registerCreateInvitation(app);
  registerRevokeInvitation(app);
}
