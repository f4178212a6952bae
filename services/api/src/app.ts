import { OpenAPIHono } from '@hono/zod-openapi';
import { type ApiEnv, DEFAULT_HOOK_RATE_LIMIT } from '@weft/config';
import type { Database } from '@weft/db';
import {
  createOutboundHttpClient,
  createSecretBox,
  type ExecutionEngine,
  fieldsFromIssues,
  type OutboundHttpClient,
  pingDatabase,
  type SecretBox,
  validationError,
  type WorkerCheck,
} from '@weft/domain';
import { getLogger, type Logger } from '@weft/telemetry';
import { createEncryptionCodec } from '@weft/temporal/codec';
import { Hono } from 'hono';
import type { AppEnv } from './app-env';
import { accountsDepsFrom, type WebEnv } from './auth/web-session';
import { handleError } from './error-handler';
import { authenticate } from './middleware/authenticate';
import { limitBodySize } from './middleware/body-size';
import { browserCors } from './middleware/browser-cors';
import { jsonBody } from './middleware/json-body';
import { requestTelemetry } from './middleware/request-telemetry';
import { registerCreateApiKey } from './routes/api-keys/create';
import { registerListApiKeys } from './routes/api-keys/list';
import { registerRevokeApiKey } from './routes/api-keys/revoke';
import { registerListAuditLogs } from './routes/audit-logs/list';
import { registerAccountRoutes, registerPublicAuthRoutes } from './routes/auth';
import { sameSiteOnly } from './routes/auth/shared';
import { registerListChatConversations } from './routes/chat-conversations/list';
import { registerListChatTemplates } from './routes/chat-templates/list';
import { registerSyncChatTemplates } from './routes/chat-templates/sync';
import { registerChatWebhooks } from './routes/chat-webhooks';
import { registerCredentialRoutes } from './routes/credentials';
import { registerDashboard } from './routes/dashboard/summary';
import { registerDocs } from './routes/docs/docs';
import { registerListEventTypes } from './routes/event-types/list';
import { registerPublishEvent } from './routes/events/publish';
import { registerCancelExecution } from './routes/executions/cancel';
import { registerGetExecution } from './routes/executions/get';
import { registerListExecutions } from './routes/executions/list';
import { registerRetryExecution } from './routes/executions/retry';
import { registerListCredentialTypes } from './routes/forms/credential-types';
import { registerListModuleTypes } from './routes/forms/module-types';
import { registerHealthz } from './routes/health/healthz';
import { registerReadyz } from './routes/health/readyz';
import { registerReceiveHook } from './routes/hooks/receive';
import { registerMetrics } from './routes/metrics/get';
import { registerModuleRoutes } from './routes/modules';
import { registerListNodeTypes } from './routes/node-types/list';
import { registerGetSettings } from './routes/settings/get';
import { registerUpdateSettings } from './routes/settings/update';
import { registerTemplateRoutes } from './routes/templates';
import { registerCodecCors } from './routes/temporal-codec/access';
import { registerCodecDecode } from './routes/temporal-codec/decode';
import { registerCodecEncode } from './routes/temporal-codec/encode';
import { registerPollPreview } from './routes/triggers/poll-preview';
import { registerWebhookRoutes } from './routes/webhooks';
import { registerWorkbenchRoutes } from './routes/workbench';
import { registerCreateWorkflow } from './routes/workflows/create';
import { registerDeleteWorkflow } from './routes/workflows/delete';
import { registerExecuteWorkflow } from './routes/workflows/execute';
import { registerGetWorkflow } from './routes/workflows/get';
import { registerGetWorkflowVersion } from './routes/workflows/get-version';
import { registerListWorkflows } from './routes/workflows/list';
import { registerListWorkflowVersions } from './routes/workflows/list-versions';
import { registerGetPollStatus } from './routes/workflows/poll-status';
import { registerRegenerateWebhookToken } from './routes/workflows/regenerate-webhook-token';
import { registerUpdateWorkflow } from './routes/workflows/update';
import { answerUnmatchedRoute, refuseOtherMethodsOnFixedPaths } from './unmatched-route';

export interface AppDeps {
  db: Database;
  env: Pick<
    ApiEnv,
    'APP_URL' | 'MAX_BODY_BYTES' | 'RATE_LIMIT_PER_KEY' | 'RATE_LIMIT_PER_ORG' | 'TRUST_PROXY_HOPS'
  > &
    Partial<
      Pick<
        ApiEnv,
        | 'TEMPORAL_UI_URL'
        | 'HOOK_RATE_LIMIT'
        | 'TEMPORAL_CODEC_TOKEN'
        | 'HOST'
        | 'CHAT_CLOUD_BASE_URL'
        | 'CHAT_GATEWAY_BASE_URL'
        | 'CHAT_GATEWAY_CONTENT_BASE_URL'
        | 'METRICS_TOKEN'
      >
    > &
    Partial<WebEnv>;
  /** Readiness probe of the Temporal frontend. */
  temporalReady: () => Promise<boolean>;
  /** The worker process's state when a supervisor (`weft up`, split layout) runs it; /readyz reports it. */
  workerState?: () => Promise<WorkerCheck>;
  /** Starts, retries and cancels executions (Temporal). Without one, execution routes answer 500. */
  engine?: ExecutionEngine;
  /**
   * APP_KEY: encrypts stored secrets (credentials, webhook and hook signing secrets). Without it, saving
   * a secret answers 500.
   */
  appKey?: Uint8Array;
  /** APP_KEYS_PREVIOUS: what they sealed (stored secrets, Temporal payloads) still opens. */
  previousAppKeys?: readonly Uint8Array[];
  /** SSRF_ALLOWLIST (parsed): private ranges outbound URLs may point to; empty by default. */
  ssrfAllowlist?: readonly string[];
  logError?: (error: unknown) => void;
  /** Access-log lines and unhandled errors (default: the process's logger, @weft/telemetry). */
  logger?: Logger;
}

const unavailable = () =>
  Promise.reject(new Error('No execution engine is configured for this API instance.'));
const engineUnavailable: ExecutionEngine = {
  start: unavailable,
  retry: unavailable,
  cancel: unavailable,
  deliverEvent: unavailable,
  touchCart: unavailable,
  closeCart: unavailable,
  syncWorkflowTriggers: unavailable,
  removeWorkflowTriggers: unavailable,
  startDeliveries: unavailable,
};

const noAppKey = (): never => {
  throw new Error('No APP_KEY is configured for this API instance.');
};
const secretsUnavailable: SecretBox = { encrypt: noAppKey, decrypt: noAppKey };

/** The whole HTTP API: `/api/v1/*`, `/api/hooks/:token`, `/healthz`, `/readyz`, `/metrics`. */
export function createApp(deps: AppDeps): Hono {
  const logger = deps.logger ?? getLogger('api');
  const logError = deps.logError ?? ((error) => logger.error({ err: error }, 'unhandled error'));
  const onError = (error: unknown, c: Parameters<typeof handleError>[1]) => handleError(error, c, logError);

  const engine = deps.engine ?? engineUnavailable;
  const v1 = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldsFromIssues(result.error.issues));
    },
  });
  v1.onError(onError);

  const secrets = deps.appKey ? createSecretBox(deps.appKey, deps.previousAppKeys) : secretsUnavailable;
  v1.use('*', browserCors(deps.env.APP_URL));
  v1.use('*', limitBodySize(deps.env.MAX_BODY_BYTES));
  registerDocs(v1, deps.env.APP_URL);
  const accounts = accountsDepsFrom(
    {
      db: deps.db,
      secrets,
      ssrfAllowlist: deps.ssrfAllowlist ?? [],
      logWarning: (fields, message) => logger.warn(fields, message),
    },
    deps.env,
  );
  v1.use('*', async (c, next) => {
    c.set('engine', engine);
    c.set('secrets', secrets);
    c.set('accounts', accounts);
    c.set('appKey', deps.appKey);
    c.set('temporalUiUrl', deps.env.TEMPORAL_UI_URL ?? '');
    c.set('siteUrl', deps.env.APP_URL);
    await next();
  });
  v1.use('/auth/*', sameSiteOnly(deps.env.APP_URL));
  v1.use('/auth/*', jsonBody);
  registerPublicAuthRoutes(v1, deps.env.TRUST_PROXY_HOPS);
  v1.use(
    '*',
    authenticate({
      db: deps.db,
      ratePerKey: deps.env.RATE_LIMIT_PER_KEY,
      ratePerOrg: deps.env.RATE_LIMIT_PER_ORG,
      trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
      sessionIdleMinutes: accounts.sessions.idleMinutes,
      appKey: deps.appKey,
    }),
  );
  v1.use('*', jsonBody);
  // After the body checks, like the 405 of an unmatched route; the table is read on the first
  // request, when `app` below holds every route.
  v1.use(
    '*',
    refuseOtherMethodsOnFixedPaths(() => app.routes),
  );
  registerAccountRoutes(v1);

  registerListWorkflows(v1);
  registerCreateWorkflow(v1);
  registerGetWorkflow(v1);
  registerGetPollStatus(v1);
  registerListWorkflowVersions(v1);
  registerGetWorkflowVersion(v1);
  registerUpdateWorkflow(v1);
  registerDeleteWorkflow(v1);
  registerListApiKeys(v1);
  registerCreateApiKey(v1);
  registerRevokeApiKey(v1);
  registerListAuditLogs(v1);
  registerListNodeTypes(v1);
  registerExecuteWorkflow(v1);
  registerPublishEvent(v1);
  registerListExecutions(v1);
  registerGetExecution(v1);
  registerRetryExecution(v1);
  registerCancelExecution(v1);
  registerWorkbenchRoutes(v1);
  registerRegenerateWebhookToken(v1);
  registerGetSettings(v1);
  registerUpdateSettings(v1);
  registerListEventTypes(v1);
  registerTemplateRoutes(v1);
  registerWebhookRoutes(v1, { secrets, ssrfAllowlist: deps.ssrfAllowlist ?? [] });
  registerCredentialRoutes(v1, { secrets });
  let outboundHttp: OutboundHttpClient | undefined;
  // Created on first use: most API instances never call a provider.
  const providers = () => {
    outboundHttp ??= createOutboundHttpClient({ allowlist: [...(deps.ssrfAllowlist ?? [])] });
    return {
      secrets,
      http: outboundHttp,
      ssrfAllowlist: deps.ssrfAllowlist ?? [],
      cloudBaseUrl: deps.env.CHAT_CLOUD_BASE_URL ?? 'https://graph.facebook.com',
      gatewayBaseUrl: deps.env.CHAT_GATEWAY_BASE_URL ?? 'https://api.twilio.com',
      gatewayContentBaseUrl: deps.env.CHAT_GATEWAY_CONTENT_BASE_URL ?? 'https://content.twilio.com',
    };
  };
  registerModuleRoutes(v1, {
    secrets,
    check: () => {
      const p = providers();
      return { ...p, chatCloudBaseUrl: p.cloudBaseUrl, chatGatewayBaseUrl: p.gatewayBaseUrl };
    },
  });
  registerListChatTemplates(v1);
  registerListChatConversations(v1);
  registerDashboard(v1);
  registerListCredentialTypes(v1);
  registerListModuleTypes(v1);
  registerSyncChatTemplates(v1, providers);
  registerPollPreview(v1, providers);

  const app = new Hono();
  // First: every request, whatever answers it, gets its id, its access-log line and its metrics.
  app.use('*', requestTelemetry(logger));
  app.onError(onError);
  app.notFound(answerUnmatchedRoute(() => app.routes));
  registerHealthz(app);
  registerMetrics(app, { token: deps.env.METRICS_TOKEN, trustedProxyHops: deps.env.TRUST_PROXY_HOPS });
  registerReadyz(app, {
    database: () => pingDatabase(deps.db),
    temporal: deps.temporalReady,
    worker: deps.workerState,
  });
  app.route('/api/v1', v1);
  if (deps.appKey && deps.env.TEMPORAL_UI_URL) {
    const codecDeps = {
      codec: createEncryptionCodec(deps.appKey, deps.previousAppKeys),
      temporalUiUrl: deps.env.TEMPORAL_UI_URL,
      token: deps.env.TEMPORAL_CODEC_TOKEN,
      host: deps.env.HOST,
      trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
    };
    registerCodecCors(app, codecDeps);
    registerCodecDecode(app, codecDeps);
    registerCodecEncode(app, codecDeps);
  }
  registerChatWebhooks(app, {
    siteUrl: deps.env.APP_URL,
    db: deps.db,
    engine,
    secrets,
    maxBodyBytes: deps.env.MAX_BODY_BYTES,
    logger,
  });
  registerReceiveHook(app, {
    db: deps.db,
    engine,
    secrets,
    maxBodyBytes: deps.env.MAX_BODY_BYTES,
    ratePerMinute: deps.env.HOOK_RATE_LIMIT ?? DEFAULT_HOOK_RATE_LIMIT,
    trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
  });
  return app;
}
