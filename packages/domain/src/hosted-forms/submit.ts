import { type Database, withTenant } from '@weft/db';
import { FormTriggerConfig } from '@weft/graph';
import { sql } from 'drizzle-orm';
import { type CaptchaSettings, checkCaptcha } from '../accounts/captcha';
import { AppError, validationError } from '../errors';
import type { ExecutionEngine } from '../executions/execution-engine';
import { prepareExecutions } from '../executions/prepare';
import { findHookToken } from '../hooks/find-hook';
import { isWellFormedHookToken } from '../hooks/token';
import { validateSubmission } from './fields';

interface FoundForm {
  workflowId: string;
  organizationId: string;
  active: boolean;
  config: FormTriggerConfig;
  /** Requests counted against this form in the current minute, this one included. */
  count: number;
  windowStart: Date;
}

/** The form behind a token, counted against its per-minute limit (weft_find_hook: one round trip). */
async function findForm(db: Database, token: string): Promise<FoundForm | null> {
  if (!isWellFormedHookToken(token)) return null;
  const row = await findHookToken(db, token);
  if (row?.trigger_type !== 'form') return null;
  const config = FormTriggerConfig.safeParse(row.trigger_config);
  if (!config.success) return null;
  return {
    workflowId: row.workflow_id,
    organizationId: row.organization_id,
    active: row.status === 'active',
    config: config.data,
    count: row.hook_count,
    windowStart: new Date(row.window_start),
  };
}

function refuseOverLimit(form: FoundForm, ratePerMinute: number) {
  if (form.count <= ratePerMinute) return;
  const retryAfter = Math.max(1, Math.ceil((form.windowStart.getTime() + 60_000 - Date.now()) / 1000));
  throw new AppError('rate_limited', 'Too many submissions to this form; retry after Retry-After.', {}, 429, {
    'Retry-After': String(retryAfter),
  });
}

export interface HostedFormDeps {
  db: Database;
  engine: ExecutionEngine;
  /** Submissions (and page loads) per minute per form (HOOK_RATE_LIMIT, shared with hooks). */
  ratePerMinute: number;
  /** The instance's captcha (CAPTCHA_ENABLED); a form with `captcha: true` asks for it. */
  captcha?: CaptchaSettings;
}

/** GET /api/forms/<token>: what the hosted page draws. Unknown token (or not a form): 404. */
export async function describeHostedForm(deps: HostedFormDeps, token: string) {
  const form = await findForm(deps.db, token);
  if (!form) throw new AppError('not_found', 'Form not found');
  refuseOverLimit(form, deps.ratePerMinute);
  const { config } = form;
  const captcha = config.captcha && deps.captcha ? deps.captcha : undefined;
  return {
    title: config.title,
    description: config.description ?? null,
    fields: config.fields.map((f) => ({
      name: f.name,
      label: f.label,
      type: f.type,
      required: f.required,
      options: f.options ?? null,
      help: f.help ?? null,
    })),
    submit_label: config.submit_label ?? 'Submit',
    success_message: config.success_message ?? 'Thank you: your answer was sent.',
    open: form.active,
    captcha: captcha
      ? { provider: captcha.provider, site_key: captcha.siteKey, script_url: captcha.scriptUrl ?? '' }
      : null,
  };
}

/**
 * POST /api/forms/<token>: a submission, checked in an order that tells an outsider nothing: an
 * unknown token is 404, then the per-form rate limit (429), the captcha when the form asks for it,
 * a switched-off workflow (409), the fields (422 naming each). The checked values are the
 * `trigger` of one execution (trigger `form`).
 */
export async function submitHostedForm(
  deps: HostedFormDeps,
  input: { token: string; body: Record<string, unknown>; ipAddress?: string },
) {
  const form = await findForm(deps.db, input.token);
  if (!form) throw new AppError('not_found', 'Form not found');
  refuseOverLimit(form, deps.ratePerMinute);
  if (form.config.captcha) {
    const token = input.body.captcha_token;
    await checkCaptcha(deps.captcha, typeof token === 'string' ? token : undefined, input.ipAddress);
  }
  if (!form.active) throw new AppError('conflict', 'This form is not accepting answers right now.');
  const checked = validateSubmission(form.config.fields, input.body);
  if ('errors' in checked) throw validationError(checked.errors, 'Some answers need another look.');
  const executionId = await withTenant(deps.db, form.organizationId, async (tx) => {
    const rows = await tx.execute<{
      id: string;
      name: string;
      version: number;
      trigger_type: string;
      trigger_config: Record<string, unknown>;
      nodes: unknown[];
      edges: unknown[];
    }>(
      sql`select id, name, version, trigger_type, trigger_config, nodes, edges from workflows where id = ${form.workflowId}`,
    );
    const workflow = rows[0];
    if (!workflow) throw new AppError('not_found', 'Form not found');
    const [id] = await prepareExecutions(tx, form.organizationId, [
      { workflow, trigger: 'form', event: null, payload: checked.values },
    ]);
    return id as string;
  });
  await deps.engine.start(form.organizationId, [executionId]);
  return { message: 'Thank you.', execution_id: executionId };
}
