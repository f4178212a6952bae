import {
  type CaptchaSettings,
  describeHostedForm,
  type ExecutionEngine,
  type ServiceContext,
  submitHostedForm,
  validationError,
} from '@weft/domain';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody } from '../../error-handler';
import { clientIp } from '../../middleware/client-ip';

export interface HostedFormRouteDeps {
  db: ServiceContext['db'];
  engine: ExecutionEngine;
  ratePerMinute: number;
  captcha?: CaptchaSettings;
  trustedProxyHops: number;
}

/** A submission is a few fields: far below the API's body limit. */
const FORM_BODY_BYTES = 64 * 1024;

/** The body as JSON (an object) or as an HTML form posts it (url-encoded or multipart, text fields only). */
async function readSubmission(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (type.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = await c.req.json();
    } catch {
      throw validationError({ body: ['Malformed JSON'] }, 'The request body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw validationError({ body: ['must be a JSON object'] }, 'The request body must be a JSON object.');
    }
    return parsed as Record<string, unknown>;
  }
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      // A multipart body without its boundary, or cut short: the sender's mistake, not a 500.
      throw validationError({ body: ['Malformed form body'] }, 'The request body is not a valid form post.');
    }
    return Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === 'string'));
  }
  throw validationError(
    { body: ['must be application/json or a form post'] },
    'Send the answers as JSON or as a form post.',
  );
}

/**
 * The hosted form's API at `{site_url}/api/forms/<token>`, outside /api/v1: the token is the
 * credential (no key, no session, no CORS: the page is served from the same origin). GET answers
 * what the page draws; POST takes a submission (JSON or form-encoded) and starts the workflow.
 */
export function registerHostedForms(app: Hono, deps: HostedFormRouteDeps) {
  const formDeps = {
    db: deps.db,
    engine: deps.engine,
    ratePerMinute: deps.ratePerMinute,
    captcha: deps.captcha,
  };
  app.get('/api/forms/:token', async (c) => {
    const form = await describeHostedForm(formDeps, c.req.param('token'));
    return c.json(form, 200, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  });
  app.post(
    '/api/forms/:token',
    bodyLimit({
      maxSize: FORM_BODY_BYTES,
      onError: (c) =>
        c.json(errorBody('payload_too_large', `The submission exceeds ${FORM_BODY_BYTES} bytes.`), 413),
    }),
    async (c) => {
      const result = await submitHostedForm(formDeps, {
        token: c.req.param('token'),
        body: await readSubmission(c),
        ipAddress: clientIp(c, deps.trustedProxyHops),
      });
      return c.json(result, 202);
    },
  );
}
