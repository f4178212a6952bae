import { OpenAPIHono } from '@hono/zod-openapi';
import { type ApiEnv, DEFAULT_HOOK_RATE_LIMIT, DEFAULT_MCP_CALL_TIMEOUT } from '@weft/config';
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
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv, OutboundProviders } from './app-env';
import { accountsDepsFrom, type WebEnv } from './auth/web-session';
import { handleError } from './error-handler';
import { registerMcpServer } from './mcp-server';
import { authenticate } from './middleware/authenticate';
import { limitBodySize } from './middleware/body-size';
import { browserCors } from './middleware/browser-cors';
import { jsonBody } from './middleware/json-body';
import { requestTelemetry } from './middleware/request-telemetry';
import { registerApprovalLinks } from './routes/approval-links/register';
import { sameSiteOnly } from './routes/auth/shared';
import { registerChatWebhooks } from './routes/chat-webhooks/receive';
import { registerHealthz } from './routes/health/healthz';
import { registerReadyz } from './routes/health/readyz';
import { registerReceiveHook } from './routes/hooks/receive';
import { authenticatedApiRoutes, publicApiRoutes } from './routes/index';
import { registerMetrics } from './routes/metrics/get';
import { registerCodecCors } from './routes/temporal-codec/access';
import { registerCodecDecode } from './routes/temporal-codec/decode';
import { registerCodecEncode } from './routes/temporal-codec/encode';
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
        | 'MCP_CALL_TIMEOUT'
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
  deliverApproval: unavailable,
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

/** The whole HTTP API: `/api/v1/*`, `/api/mcp`, `/api/hooks/:token`, `/healthz`, `/readyz`, `/metrics`. */
export function createApp(deps: AppDeps): Hono {
  const logger = deps.logger ?? getLogger('api');
  const logError = deps.logError ?? ((error) => logger.error({ err: error }, 'unhandled error'));
  const onError = (error: unknown, c: Parameters<typeof handleError>[1]) => handleError(error, c, logError);
  const shared: SharedDeps = {
    engine: deps.engine ?? engineUnavailable,
    secrets: deps.appKey ? createSecretBox(deps.appKey, deps.previousAppKeys) : secretsUnavailable,
    logger,
    onError,
  };

  const app = new Hono();
  // First: every request, whatever answers it, gets its id, its access-log line and its metrics.
  app.use('*', requestTelemetry(logger));
  app.onError(onError);
  app.notFound(answerUnmatchedRoute(() => app.routes));
  registerProbes(app, deps);
  const auth = createAuthentication(deps, shared);
  // The route table is read on the first request, when `app` holds every route.
  app.route(
    '/api/v1',
    createApiV1(deps, shared, auth, () => app.routes),
  );
  registerMcpServer(app, {
    siteUrl: deps.env.APP_URL,
    maxBodyBytes: deps.env.MAX_BODY_BYTES,
    callTimeoutMs: (deps.env.MCP_CALL_TIMEOUT ?? DEFAULT_MCP_CALL_TIMEOUT) * 1000,
    provideContext: auth.provideContext,
    authenticate: auth.authenticate,
    onError: shared.onError,
  });
  registerInboundEndpoints(app, deps, shared);
  return app;
}

/** What the API's parts share: one engine, one secret box, one logger, one error answer. */
interface SharedDeps {
  engine: ExecutionEngine;
  secrets: SecretBox;
  logger: Logger;
  onError: (error: unknown, c: Parameters<typeof handleError>[1]) => Response;
}

/**
 * `/api/v1`: the OpenAPI routes (routes/index.ts) behind the shared middleware, in this order: CORS,
 * body size, the request's context, the public routes, authentication, JSON body, the 405 of a known
 * path, then every authenticated route.
 */
function createApiV1(
  deps: AppDeps,
  shared: SharedDeps,
  auth: ReturnType<typeof createAuthentication>,
  allRoutes: () => Hono['routes'],
) {
  const v1 = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldsFromIssues(result.error.issues));
    },
  });
  v1.onError(shared.onError);
  v1.use('*', browserCors(deps.env.APP_URL));
  v1.use('*', limitBodySize(deps.env.MAX_BODY_BYTES));
  v1.use('*', auth.provideContext);
  v1.use('/auth/*', sameSiteOnly(deps.env.APP_URL));
  v1.use('/auth/*', jsonBody);
  for (const register of publicApiRoutes) register(v1);
  v1.use('*', auth.authenticate);
  v1.use('*', jsonBody);
  // After the body checks, like the 405 of an unmatched route.
  v1.use('*', refuseOtherMethodsOnFixedPaths(allRoutes));
  for (const register of authenticatedApiRoutes) register(v1);
  return v1;
}

/**
 * The request variables and the API key check, shared by /api/v1 and /api/mcp: one key cache, one
 * set of rate limits for both.
 */
function createAuthentication(deps: AppDeps, shared: SharedDeps) {
  const accounts = accountsDepsFrom(
    {
      db: deps.db,
      secrets: shared.secrets,
      ssrfAllowlist: deps.ssrfAllowlist ?? [],
      logWarning: (fields, message) => shared.logger.warn(fields, message),
    },
    deps.env,
  );
  return {
    provideContext: provideRequestContext(deps, shared, accounts),
    authenticate: authenticate({
      db: deps.db,
      ratePerKey: deps.env.RATE_LIMIT_PER_KEY,
      ratePerOrg: deps.env.RATE_LIMIT_PER_ORG,
      trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
      sessionIdleMinutes: accounts.sessions.idleMinutes,
      appKey: deps.appKey,
    }),
  };
}

/** Sets what every /api/v1 handler reads from its context (AppEnv's variables, before `ctx`/`auth`). */
function provideRequestContext(
  deps: AppDeps,
  shared: SharedDeps,
  accounts: AppEnv['Variables']['accounts'],
): MiddlewareHandler<AppEnv> {
  const ssrfAllowlist = deps.ssrfAllowlist ?? [];
  let outboundHttp: OutboundHttpClient | undefined;
  // Created on first use: most API instances never call a provider.
  const providers = (): OutboundProviders => {
    outboundHttp ??= createOutboundHttpClient({ allowlist: [...ssrfAllowlist] });
    return {
      secrets: shared.secrets,
      http: outboundHttp,
      ssrfAllowlist,
      cloudBaseUrl: deps.env.CHAT_CLOUD_BASE_URL ?? 'https://graph.facebook.com',
      gatewayBaseUrl: deps.env.CHAT_GATEWAY_BASE_URL ?? 'https://api.twilio.com',
      gatewayContentBaseUrl: deps.env.CHAT_GATEWAY_CONTENT_BASE_URL ?? 'https://content.twilio.com',
    };
  };
  return async (c, next) => {
    c.set('engine', shared.engine);
    c.set('secrets', shared.secrets);
    c.set('accounts', accounts);
    c.set('appKey', deps.appKey);
    c.set('temporalUiUrl', deps.env.TEMPORAL_UI_URL ?? '');
    c.set('siteUrl', deps.env.APP_URL);
    c.set('trustedProxyHops', deps.env.TRUST_PROXY_HOPS);
    c.set('ssrfAllowlist', ssrfAllowlist);
    c.set('providers', providers);
    await next();
  };
}

/** `/healthz`, `/metrics`, `/readyz`: for orchestrators and scrapers, outside the API's contract. */
function registerProbes(app: Hono, deps: AppDeps) {
  registerHealthz(app);
  registerMetrics(app, { token: deps.env.METRICS_TOKEN, trustedProxyHops: deps.env.TRUST_PROXY_HOPS });
  registerReadyz(app, {
    database: () => pingDatabase(deps.db),
    temporal: deps.temporalReady,
    worker: deps.workerState,
  });
}

/**
 * Endpoints outside /api/v1 that authenticate their callers their own way: the Temporal UI's codec
 * (its token), the chat providers' webhooks (their signatures), inbound hooks (the URL's token).
 */
function registerInboundEndpoints(app: Hono, deps: AppDeps, shared: SharedDeps) {
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
    engine: shared.engine,
    secrets: shared.secrets,
    maxBodyBytes: deps.env.MAX_BODY_BYTES,
    logger: shared.logger,
  });
  registerApprovalLinks(app, { db: deps.db, engine: shared.engine });
  registerReceiveHook(app, {
    db: deps.db,
    engine: shared.engine,
    secrets: shared.secrets,
    maxBodyBytes: deps.env.MAX_BODY_BYTES,
    ratePerMinute: deps.env.HOOK_RATE_LIMIT ?? DEFAULT_HOOK_RATE_LIMIT,
    trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
  });
}
