import type { Database } from '@weft/db';
import type { SecretBox } from '../encryption';
import { AppError, validationError } from '../errors';
import { publishEvent } from '../events/publish';
import type { ExecutionEngine } from '../executions/execution-engine';
import { decodeUtf8Body, findUnsafeJsonValue } from '../json-safety';
import { verifyWebhookSignature } from '../webhooks/signing';
import { openHookSecret } from '../workflows/hook-secret';
import { findHookToken } from './find-hook';
import {
  findHookReceipt,
  HOOK_RECEIPT_WINDOW_HOURS,
  type ReceiptKey,
  receiptKeyOf,
  recordHookReceipt,
  releaseHookReceipt,
} from './receipts';
import { isWellFormedHookToken } from './token';

export interface ReceiveHookInput {
  token: string;
  /** The exact bytes received: the signature covers them, not a re-serialization. */
  body: Uint8Array;
  headers: { get(name: string): string | null | undefined };
}

interface FoundHook {
  workflowId: string;
  organizationId: string;
  status: string;
  triggerType: string;
  secret: string | null;
  /** Requests counted against the hook in the current one-minute window, this one included. */
  count: number;
  windowStart: Date;
}

/** Token look-up across organizations and the per-hook rate count, in one round trip (migration 0010). */
async function findHook(db: Database, secrets: SecretBox, token: string): Promise<FoundHook | null> {
  const row = await findHookToken(db, token);
  if (!row) return null;
  return {
    workflowId: row.workflow_id,
    organizationId: row.organization_id,
    status: row.status,
    triggerType: row.trigger_type,
    secret: openHookSecret(row.trigger_config, secrets),
    count: row.hook_count,
    windowStart: new Date(row.window_start),
  };
}

/** The body as a JSON object; an empty body is `{}`. Everything else is a 422, as on the API. */
export function parseHookBody(body: Uint8Array): Record<string, unknown> {
  const text = decodeUtf8Body(body);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationError({ body: ['Malformed JSON'] }, 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError({ body: ['must be a JSON object'] }, 'The request body must be a JSON object.');
  }
  const problem = findUnsafeJsonValue(parsed);
  if (problem) throw validationError({ [problem.path || 'body']: [problem.message] });
  return parsed as Record<string, unknown>;
}

/**
 * POST /api/hooks/<token>: the token is the credential (no API key). Checks run in an order that
 * tells an outsider nothing: an unknown token is 404; then the per-hook rate limit (429); then the
 * HMAC signature when the workflow has `trigger_config.secret` (401); then a repeat (receipts.ts: a
 * known `webhook-id` is answered as the first time, a replayed `X-Webhook-Signature` is 409); only a
 * caller past those learns that the workflow is switched off (409) or that the body is bad (422).
 *
 * The body becomes the `trigger` of one execution of the hooked workflow (trigger `webhook`, event
 * `webhook.received`), and `webhook.received` is published to the organization's event workflows in
 * the same statement, so the hooked workflow (trigger_type webhook) is never started twice.
 */
export async function receiveHook({
  db,
  engine,
  secrets,
  input,
  ratePerMinute,
  ipAddress,
}: {
  db: Database;
  secrets: SecretBox;
  engine: ExecutionEngine;
  input: ReceiveHookInput;
  ratePerMinute: number;
  ipAddress?: string;
}) {
  const hook = isWellFormedHookToken(input.token) ? await findHook(db, secrets, input.token) : null;
  if (hook?.triggerType !== 'webhook') throw new AppError('not_found', 'Hook not found');
  if (hook.count > ratePerMinute) {
    const retryAfter = Math.max(1, Math.ceil((hook.windowStart.getTime() + 60_000 - Date.now()) / 1000));
    throw new AppError('rate_limited', 'Too many requests to this hook; retry after Retry-After.', {}, 429, {
      'Retry-After': String(retryAfter),
    });
  }
  const verified =
    hook.secret === null ? null : verifyWebhookSignature(hook.secret, input.body, input.headers);
  if (hook.secret !== null && verified === null) {
    throw new AppError(
      'unauthenticated',
      'The webhook signature is missing or invalid (X-Webhook-Signature, or webhook-id/-timestamp/-signature).',
    );
  }
  const owner = { organizationId: hook.organizationId, workflowId: hook.workflowId };
  const receipt = receiptKeyOf(verified, input.headers);
  const accepted = (executionIds: string[]) => ({
    message: 'Webhook accepted.',
    workflow_id: hook.workflowId,
    execution_ids: executionIds,
  });
  // Before the status and body checks: a retry of an accepted request gets the first answer even if
  // the workflow was switched off since.
  const earlier = receipt ? await findHookReceipt(db, owner, receipt) : null;
  if (receipt && earlier) return answerRepeat(receipt, earlier, accepted);
  if (hook.status !== 'active') {
    throw new AppError(
      'conflict',
      `The workflow behind this hook is ${hook.status}; activate it to receive.`,
    );
  }
  const payload = parseHookBody(input.body);
  let recorded: string[] | null = null;
  try {
    const result = await publishEvent({
      ctx: { db, organizationId: hook.organizationId, actor: ipAddress ? { ipAddress } : {} },
      input: { event: 'webhook.received', payload },
      engine,
      alsoRun: { hookedWorkflowId: hook.workflowId },
      // The receipt commits with the executions or not at all: a crash between the two cannot
      // leave a retry that starts a second run, or a receipt for a run that never existed.
      inTransaction: receipt
        ? async (tx, executionIds) => {
            if (!(await recordHookReceipt(tx, owner, receipt, executionIds))) throw new RepeatedRequest();
            recorded = executionIds;
          }
        : undefined,
    });
    return accepted(result.execution_ids);
  } catch (error) {
    if (!receipt) throw error;
    // A twin request committed first (our executions were rolled back): answer as for any repeat.
    if (error instanceof RepeatedRequest) {
      return answerRepeat(receipt, (await findHookReceipt(db, owner, receipt)) ?? [], accepted);
    }
    // Failed after the commit (the start): the sender's retry must run again, not get these ids.
    if (recorded) await releaseHookReceipt(db, owner, receipt, recorded).catch(() => {});
    throw error;
  }
}

/** Thrown inside the publish transaction to roll it back when the receipt already exists. */
class RepeatedRequest extends Error {}

/** A sender's retry (same webhook-id) gets the first answer; a replayed body-only signature a 409. */
function answerRepeat<T>(receipt: ReceiptKey, executionIds: string[], accepted: (ids: string[]) => T): T {
  if (receipt.kind === 'webhook_id') return accepted(executionIds);
  throw new AppError(
    'conflict',
    `This request was already received: a body signed only with X-Webhook-Signature is accepted once ` +
      `within ${HOOK_RECEIPT_WINDOW_HOURS} hours. Make each body unique (include an id or a timestamp), ` +
      'or sign with the Standard Webhooks headers.',
    { 'X-Webhook-Signature': ['was already used for this body'] },
  );
}
