import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../app-env';
import { registerCreateApiKey } from './api-keys/create';
import { registerListApiKeys } from './api-keys/list';
import { registerRevokeApiKey } from './api-keys/revoke';
import { registerDecideApproval } from './approvals/decide';
import { registerGetApproval } from './approvals/get';
import { registerListApprovals } from './approvals/list';
import { registerListAuditLogs } from './audit-logs/list';
import { registerAcceptInvitation } from './auth/accept-invitation';
import { registerAuthConfig } from './auth/config';
import { registerForgotPassword } from './auth/forgot-password';
import { registerDescribeInvitation } from './auth/invitation';
import { registerLogin } from './auth/login';
import { registerLogout } from './auth/logout';
import { registerRegister } from './auth/register';
import { registerResetPassword } from './auth/reset-password';
import { registerInstall } from './auth/setup';
import { registerLoginTwoFactor } from './auth/two-factor';
import { registerListChatConversations } from './chat-conversations/list';
import { registerListChatTemplates } from './chat-templates/list';
import { registerSyncChatTemplates } from './chat-templates/sync';
import { registerCreateCredential } from './credentials/create';
import { registerDeleteCredential } from './credentials/delete';
import { registerGetCredential } from './credentials/get';
import { registerListCredentials } from './credentials/list';
import { registerUpdateCredential } from './credentials/update';
import { registerDashboardAiUsage } from './dashboard/ai-usage';
import { registerDashboard } from './dashboard/summary';
import { registerDocs } from './docs/docs';
import { registerListEventTypes } from './event-types/list';
import { registerPublishEvent } from './events/publish';
import { registerCancelExecution } from './executions/cancel';
import { registerDeleteExecution } from './executions/delete';
import { registerGetExecution } from './executions/get';
import { registerListExecutions } from './executions/list';
import { registerRetryExecution } from './executions/retry';
import { registerListCredentialTypes } from './forms/credential-types';
import { registerListModuleTypes } from './forms/module-types';
import { registerCreateInvitation } from './invitations/create';
import { registerListInvitations } from './invitations/list';
import { registerRevokeInvitation } from './invitations/revoke';
import { registerChangePassword } from './me/change-password';
import { registerEndAllSessions } from './me/end-all-sessions';
import { registerEndSession } from './me/end-session';
import { registerGetMe } from './me/get';
import { registerListSessions } from './me/list-sessions';
import { registerSwitchOrganization } from './me/switch-organization';
import { registerConfirmTwoFactor } from './me/two-factor-confirm';
import { registerDisableTwoFactor } from './me/two-factor-disable';
import { registerBeginTwoFactor } from './me/two-factor-setup';
import { registerDeleteModule } from './modules/delete';
import { registerGetModule } from './modules/get';
import { registerPutModule } from './modules/put';
import { registerTestModule } from './modules/test';
import { registerListNodeTypes } from './node-types/list';
import { registerGetSettings } from './settings/get';
import { registerUpdateSettings } from './settings/update';
import { registerCloneTemplate } from './templates/clone';
import { registerGetTemplate } from './templates/get';
import { registerListTemplates } from './templates/list';
import { registerPollPreview } from './triggers/poll-preview';
import { registerListUsers } from './users/list';
import { registerRemoveUser } from './users/remove';
import { registerIssueResetLink } from './users/reset-link';
import { registerUpdateUser } from './users/update';
import { registerCreateWebhook } from './webhooks/create';
import { registerDeleteWebhook } from './webhooks/delete';
import { registerGetWebhook } from './webhooks/get';
import { registerListWebhooks } from './webhooks/list';
import { registerListWebhookDeliveries } from './webhooks/list-deliveries';
import { registerSendWebhookTest } from './webhooks/send-test';
import { registerUpdateWebhook } from './webhooks/update';
import { registerCompareExecutions } from './workbench/compare';
import { registerReplayExecution } from './workbench/replay';
import { registerTestWorkflow } from './workbench/test-run';
import { registerCreateWorkflow } from './workflows/create';
import { registerDeleteWorkflow } from './workflows/delete';
import { registerExecuteWorkflow } from './workflows/execute';
import { registerGetWorkflow } from './workflows/get';
import { registerGetWorkflowVersion } from './workflows/get-version';
import { registerListWorkflows } from './workflows/list';
import { registerListWorkflowVersions } from './workflows/list-versions';
import { registerGetPollStatus } from './workflows/poll-status';
import { registerRegenerateWebhookToken } from './workflows/regenerate-webhook-token';
import { registerUpdateWorkflow } from './workflows/update';

/**
 * Every /api/v1 route is one file under routes/<resource>/ exporting one `register…(app)`; what a
 * handler needs beyond its request it reads from the context (`c.get('secrets')`, see app-env.ts),
 * never from parameters. Order matters: Hono tries routes in registration order (a fixed path before
 * a `{id}` one), and it is the order of the OpenAPI document and of the generated web client.
 */
export type RegisterRoute = (app: OpenAPIHono<AppEnv>) => void;

/** Before authentication: the API's own document, and sign-in for people without a session or key yet. */
export const publicApiRoutes: readonly RegisterRoute[] = [
  registerDocs,
  registerAuthConfig,
  registerInstall,
  registerLogin,
  registerLoginTwoFactor,
  registerRegister,
  registerForgotPassword,
  registerResetPassword,
  registerDescribeInvitation,
  registerAcceptInvitation,
];

/** After authentication (an API key or a session): everything else. */
export const authenticatedApiRoutes: readonly RegisterRoute[] = [
  // The signed-in user's account, and the organization's people.
  registerLogout,
  registerGetMe,
  registerSwitchOrganization,
  registerChangePassword,
  registerBeginTwoFactor,
  registerConfirmTwoFactor,
  registerDisableTwoFactor,
  registerListSessions,
  registerEndSession,
  registerEndAllSessions,
  registerListUsers,
  registerUpdateUser,
  registerRemoveUser,
  registerIssueResetLink,
  registerListInvitations,
  registerCreateInvitation,
  registerRevokeInvitation,

  registerListWorkflows,
  registerCreateWorkflow,
  registerGetWorkflow,
  registerGetPollStatus,
  registerListWorkflowVersions,
  registerGetWorkflowVersion,
  registerUpdateWorkflow,
  registerDeleteWorkflow,
  registerListApiKeys,
  registerCreateApiKey,
  registerRevokeApiKey,
  registerListAuditLogs,
  registerListNodeTypes,
  registerExecuteWorkflow,
  registerPublishEvent,
  registerListExecutions,
  registerGetExecution,
  registerRetryExecution,
  registerCancelExecution,
  registerDeleteExecution,
  registerListApprovals,
  registerGetApproval,
  registerDecideApproval,
  registerTestWorkflow,
  registerReplayExecution,
  registerCompareExecutions,
  registerRegenerateWebhookToken,
  registerGetSettings,
  registerUpdateSettings,
  registerListEventTypes,

  registerListTemplates,
  registerGetTemplate,
  registerCloneTemplate,

  registerListWebhooks,
  registerCreateWebhook,
  registerGetWebhook,
  registerUpdateWebhook,
  registerDeleteWebhook,
  registerListWebhookDeliveries,
  registerSendWebhookTest,

  registerListCredentials,
  registerCreateCredential,
  registerGetCredential,
  registerUpdateCredential,
  registerDeleteCredential,

  registerGetModule,
  registerPutModule,
  registerDeleteModule,
  registerTestModule,

  registerListChatTemplates,
  registerListChatConversations,
  registerDashboard,
  registerDashboardAiUsage,
  registerListCredentialTypes,
  registerListModuleTypes,
  registerSyncChatTemplates,
  registerPollPreview,
];
