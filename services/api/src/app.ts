import { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiEnv } from '@weft/config';
import type { Database } from '@weft/db';
import { type ExecutionEngine, fieldsFromIssues, pingDatabase, validationError } from '@weft/services';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppEnv } from './app-env';
import { errorBody, handleError } from './error-handler';
import { authenticate } from './middleware/authenticate';
import { jsonBody } from './middleware/json-body';
import { registerCreateApiKey } from './routes/api-keys/create';
import { registerListApiKeys } from './routes/api-keys/list';
import { registerRevokeApiKey } from './routes/api-keys/revoke';
import { registerListAuditLogs } from './routes/audit-logs/list';
import { registerDocs } from './routes/docs/docs';
import { registerPublishEvent } from './routes/events/publish';
import { registerCancelExecution } from './routes/executions/cancel';
import { registerGetExecution } from './routes/executions/get';
import { registerListExecutions } from './routes/executions/list';
import { registerRetryExecution } from './routes/executions/retry';
import { registerHealthz } from './routes/health/healthz';
import { registerReadyz } from './routes/health/readyz';
import { registerListNodeTypes } from './routes/node-types/list';
import { registerCreateWorkflow } from './routes/workflows/create';
import { registerDeleteWorkflow } from './routes/workflows/delete';
import { registerExecuteWorkflow } from './routes/workflows/execute';
import { registerGetWorkflow } from './routes/workflows/get';
import { registerListWorkflows } from './routes/workflows/list';
import { registerUpdateWorkflow } from './routes/workflows/update';

export interface AppDeps {
  db: Database;
  env: Pick<
    ApiEnv,
    'APP_URL' | 'MAX_BODY_BYTES' | 'RATE_LIMIT_PER_KEY' | 'RATE_LIMIT_PER_ORG' | 'TRUST_PROXY_HOPS'
  > &
    Partial<Pick<ApiEnv, 'TEMPORAL_UI_URL'>>;
  /** Readiness probe of the Temporal frontend. */
  temporalReady: () => Promise<boolean>;
  /** Starts, retries and cancels executions (Temporal). Without one, execution routes answer 500. */
  engine?: ExecutionEngine;
  logError?: (error: unknown) => void;
}

const unavailable = () =>
  Promise.reject(new Error('No execution engine is configured for this API instance.'));
const engineUnavailable: ExecutionEngine = {
  start: unavailable,
  retry: unavailable,
  cancel: unavailable,
  deliverEvent: unavailable,
};

/** The whole HTTP API: `/api/v1/*`, `/healthz`, `/readyz`. */
export function createApp(deps: AppDeps): Hono {
  const logError = deps.logError ?? ((error) => console.error('[api] unhandled error', error));
  const onError = (error: unknown, c: Parameters<typeof handleError>[1]) => handleError(error, c, logError);

  const engine = deps.engine ?? engineUnavailable;
  const v1 = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(fieldsFromIssues(result.error.issues));
    },
  });
  v1.onError(onError);
  v1.notFound((c) => c.json(errorBody('not_found', 'No such route.'), 404));

  v1.use(
    '*',
    cors({
      origin: (origin) => (origin === new URL(deps.env.APP_URL).origin ? origin : null),
      allowHeaders: ['Content-Type', 'Authorization', 'X-Api-Key', 'Idempotency-Key'],
      exposeHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After', 'Idempotent-Replayed'],
      maxAge: 600,
    }),
  );
  v1.use(
    '*',
    bodyLimit({
      maxSize: deps.env.MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          errorBody('payload_too_large', `The request body exceeds ${deps.env.MAX_BODY_BYTES} bytes.`),
          413,
        ),
    }),
  );
  registerDocs(v1, deps.env.APP_URL);
  v1.use(
    '*',
    authenticate({
      db: deps.db,
      ratePerKey: deps.env.RATE_LIMIT_PER_KEY,
      ratePerOrg: deps.env.RATE_LIMIT_PER_ORG,
      trustedProxyHops: deps.env.TRUST_PROXY_HOPS,
    }),
  );
  v1.use('*', jsonBody);
  v1.use('*', async (c, next) => {
    c.set('engine', engine);
    c.set('temporalUiUrl', deps.env.TEMPORAL_UI_URL ?? '');
    await next();
  });

  registerListWorkflows(v1);
  registerCreateWorkflow(v1);
  registerGetWorkflow(v1);
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

  const app = new Hono();
  app.onError(onError);
  app.notFound((c) => c.json(errorBody('not_found', 'No such route.'), 404));
  registerHealthz(app);
  registerReadyz(app, { database: () => pingDatabase(deps.db), temporal: deps.temporalReady });
  app.route('/api/v1', v1);
  return app;
}
