import { type Database, schema, type Tx, withTenant } from '@weft/db';
import { type PollingTriggerConfig, TriggerConfigByType } from '@weft/graph';
import { credentialHeaders, HTTP_AUTH_CREDENTIAL_TYPES } from '@weft/nodes';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { CredentialUnusableError, openCredential } from '../credentials/use';
import type { SecretBox } from '../encryption';
import type { ExecutionEngine } from '../executions/execution-engine';
import { prepareExecutions } from '../executions/prepare';
import type { OutboundHttpClient } from '../outbound-http/client';
import { OutboundHttpError } from '../outbound-http/errors';
import { presentWorkflow } from '../workflows/present';
import { itemKey, valueAtPath } from './item-keys';
import { nameBasedUuid } from './name-based-uuid';

/** The whole request, redirects and body included. */
export const POLL_TIMEOUT_MS = 15_000;
export const POLL_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
/** Items beyond this in one answer wait for the next poll (they are not marked seen). */
export const POLL_MAX_ITEMS = 1000;

export interface PollError {
  code:
    | OutboundHttpError['code']
    | 'http_status'
    | 'invalid_json'
    | 'items_not_array'
    | 'invalid_config'
    | 'credential_invalid';
  message: string;
}

export type PollResult =
  | { status: 'skipped'; reason: string }
  | { status: 'error'; error: PollError }
  | { status: 'ok'; baseline: boolean; newItems: number; executionIds: string[] };

export class PollFailure extends Error {
  constructor(readonly error: PollError) {
    super(error.message);
  }
}

const textDecoder = new TextDecoder();

/** The headers of the poll's credential, opened for this request only; a missing one fails the poll. */
export async function pollAuthHeaders(
  deps: { db: Database; secrets: SecretBox },
  organizationId: string,
  config: PollingTriggerConfig,
): Promise<Record<string, string>> {
  if (config.credential_id === undefined) return {};
  try {
    const credential = await openCredential(deps.db, deps.secrets, {
      organizationId,
      credentialId: config.credential_id,
      allowedTypes: HTTP_AUTH_CREDENTIAL_TYPES,
    });
    return credentialHeaders(credential);
  } catch (error) {
    if (error instanceof CredentialUnusableError) {
      throw new PollFailure({ code: 'credential_invalid', message: error.message });
    }
    throw error;
  }
}

/** GET/POST the URL through the SSRF-guarded client and return the list of items in the JSON answer. */
export async function fetchItems(
  http: OutboundHttpClient,
  config: PollingTriggerConfig,
  authHeaders: Record<string, string>,
  timeoutMs = POLL_TIMEOUT_MS,
): Promise<unknown[]> {
  const response = await http
    .request({
      method: config.method,
      url: config.url,
      headers: { accept: 'application/json', ...(config.headers ?? {}), ...authHeaders },
      sensitiveHeaders: Object.keys(authHeaders),
      timeoutMs,
      maxResponseBytes: POLL_MAX_RESPONSE_BYTES,
      maxRedirects: 3,
    })
    .catch((error: unknown) => {
      if (error instanceof OutboundHttpError)
        throw new PollFailure({ code: error.code, message: error.message });
      throw error;
    });
  const host = new URL(config.url).host;
  if (response.status < 200 || response.status > 299) {
    throw new PollFailure({ code: 'http_status', message: `HTTP ${response.status} from ${host}` });
  }
  let body: unknown;
  try {
    body = JSON.parse(textDecoder.decode(response.body));
  } catch {
    throw new PollFailure({ code: 'invalid_json', message: `The answer from ${host} is not JSON` });
  }
  const found = config.items_path === undefined ? body : valueAtPath(body, config.items_path);
  if (Array.isArray(found)) return found;
  // A single object is one item (an API that returns "the latest order").
  if (found !== null && typeof found === 'object') return [found];
  throw new PollFailure({
    code: 'items_not_array',
    message:
      config.items_path === undefined
        ? 'The answer is neither a list nor an object'
        : `items_path "${config.items_path}" is ${found === null ? 'not in the answer' : 'not a list or an object'}`,
  });
}

async function recordPollState(
  tx: Tx,
  ref: { organizationId: string; workflowId: string },
  state: { status: 'ok' | 'error'; error?: PollError; newItems: number; baselineTaken?: boolean },
) {
  const t = schema.pollStates;
  const values = {
    lastPolledAt: new Date(),
    lastStatus: state.status,
    lastError: state.error ?? null,
    lastNewItems: state.newItems,
    ...(state.baselineTaken ? { baselineTakenAt: new Date() } : {}),
  };
  await tx
    .insert(t)
    .values({ workflowId: ref.workflowId, organizationId: ref.organizationId, ...values })
    .onConflictDoUpdate({ target: t.workflowId, set: values });
}

/**
 * One poll of a polling-triggered workflow (the activity behind its Temporal Schedule).
 *
 * Fetches the URL, keys every item (`dedup_key` path, else a content hash) and inserts the keys
 * into poll_seen_items with ON CONFLICT DO NOTHING: the primary key (workflow, key) decides which
 * items are new, across restarts and concurrent polls alike. Each new item is recorded as an
 * execution (trigger `polling`, event `trigger.polling`, the item as payload) in the same
 * transaction, with an id derived from (workflow, key), then started; an item whose execution is
 * still `pending` (a poll that died between commit and start) is started again by the next poll,
 * and starting is idempotent. With `baseline` (the default) the first poll stores the items already
 * there without running them.
 *
 * A failed fetch (timeout, non-2xx, bad JSON, SSRF refusal, no list) is recorded in poll_states and
 * answered as `{status: 'error'}`, never thrown: the schedule keeps polling. Database errors throw.
 */
export async function pollWorkflow(
  deps: { db: Database; http: OutboundHttpClient; engine: ExecutionEngine; secrets: SecretBox },
  ref: { organizationId: string; workflowId: string },
): Promise<PollResult> {
  const w = schema.workflows;
  const loaded = await withTenant(deps.db, ref.organizationId, async (tx) => {
    const [row] = await tx
      .select()
      .from(w)
      .where(and(eq(w.id, ref.workflowId), eq(w.organizationId, ref.organizationId)));
    if (!row) return null;
    const [state] = await tx
      .select({ baselineTakenAt: schema.pollStates.baselineTakenAt })
      .from(schema.pollStates)
      .where(eq(schema.pollStates.workflowId, ref.workflowId));
    return { row, baselineTaken: Boolean(state?.baselineTakenAt) };
  });
  if (!loaded) return { status: 'skipped', reason: 'the workflow no longer exists' };
  const { row } = loaded;
  if (row.status !== 'active' || row.triggerType !== 'polling') {
    return { status: 'skipped', reason: `the workflow is ${row.status} with trigger ${row.triggerType}` };
  }

  let items: unknown[];
  let config: PollingTriggerConfig;
  try {
    const parsed = TriggerConfigByType.polling.safeParse(row.triggerConfig);
    if (!parsed.success) {
      throw new PollFailure({
        code: 'invalid_config',
        message: 'trigger_config is not a valid polling config',
      });
    }
    config = parsed.data;
    items = await fetchItems(deps.http, config, await pollAuthHeaders(deps, ref.organizationId, config));
  } catch (error) {
    if (!(error instanceof PollFailure)) throw error;
    await withTenant(deps.db, ref.organizationId, (tx) =>
      recordPollState(tx, ref, { status: 'error', error: error.error, newItems: 0 }),
    );
    return { status: 'error', error: error.error };
  }

  // One entry per key: the same item twice in one answer runs once.
  const byKey = new Map<string, unknown>();
  for (const item of items.slice(0, POLL_MAX_ITEMS)) {
    const key = itemKey(item, config.dedup_key);
    if (!byKey.has(key)) byKey.set(key, item);
  }
  const keys = [...byKey.keys()];
  const executionIdOf = (key: string) => nameBasedUuid(`poll:${ref.workflowId}:${key}`);
  const seen = schema.pollSeenItems;

  if (config.baseline && !loaded.baselineTaken) {
    await withTenant(deps.db, ref.organizationId, async (tx) => {
      if (keys.length > 0) {
        await tx
          .insert(seen)
          .values(keys.map((dedupKey) => ({ ...ref, dedupKey, executionId: null })))
          .onConflictDoNothing();
      }
      await recordPollState(tx, ref, { status: 'ok', newItems: 0, baselineTaken: true });
    });
    return { status: 'ok', baseline: true, newItems: 0, executionIds: [] };
  }

  const { fresh, toStart } = await withTenant(deps.db, ref.organizationId, async (tx) => {
    const inserted =
      keys.length === 0
        ? []
        : await tx
            .insert(seen)
            .values(keys.map((dedupKey) => ({ ...ref, dedupKey, executionId: executionIdOf(dedupKey) })))
            .onConflictDoNothing()
            .returning({ dedupKey: seen.dedupKey });
    if (keys.length > inserted.length) {
      // The keys this answer lists are still needed (retention keeps them, see weft_prune_poll_seen_items);
      // refreshed at most daily, so a steady poll costs few writes.
      await tx
        .update(seen)
        .set({ lastSeenAt: sql`now()` })
        .where(
          and(
            eq(seen.workflowId, ref.workflowId),
            inArray(seen.dedupKey, keys),
            lt(seen.lastSeenAt, sql`now() - interval '1 day'`),
          ),
        );
    }
    const workflow = presentWorkflow(row);
    const fresh = await prepareExecutions(
      tx,
      ref.organizationId,
      inserted.map(({ dedupKey }) => {
        const item = byKey.get(dedupKey);
        return {
          workflow,
          trigger: 'polling',
          event: 'trigger.polling',
          // `trigger` is an object everywhere else; a scalar item is wrapped so {{trigger.value}} reads it.
          payload: item !== null && typeof item === 'object' ? item : { value: item ?? null },
          executionId: executionIdOf(dedupKey),
        };
      }),
    );
    // Recorded but never started (a poll that died after its commit): start them now.
    const e = schema.executions;
    const pending =
      keys.length === 0
        ? []
        : await tx
            .select({ id: e.id })
            .from(e)
            .where(and(inArray(e.id, keys.map(executionIdOf)), eq(e.status, 'pending')));
    await recordPollState(tx, ref, { status: 'ok', newItems: fresh.length });
    return { fresh, toStart: pending.map((p) => p.id) };
  });
  await deps.engine.start(ref.organizationId, toStart);
  return { status: 'ok', baseline: false, newItems: fresh.length, executionIds: fresh };
}
