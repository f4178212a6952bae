import type { Database } from '@weft/db';
import { TriggerConfigByType } from '@weft/graph';
import type { SecretBox } from '../encryption';
import { fieldsFromIssues, validationError } from '../errors';
import type { OutboundHttpClient } from '../outbound-http/client';
import { itemKey } from './item-keys';
import { fetchItems, PollFailure, pollAuthHeaders } from './poll';

const PREVIEW_ITEMS = 5;
/** A person waits on the answer: shorter than a scheduled poll's 15 s, inside a client's usual 10 s. */
const PREVIEW_TIMEOUT_MS = 6_000;

/**
 * "Fetch once" in the editor's trigger block: one request as a poll would make it (same SSRF-guarded
 * client, credential, items path and dedup key), answering how many items it finds and the first
 * few with their keys. Nothing is stored and nothing runs; a fetch that fails is answered, not thrown.
 */
export async function previewPoll(
  deps: { db: Database; http: OutboundHttpClient; secrets: SecretBox },
  organizationId: string,
  rawConfig: unknown,
) {
  const parsed = TriggerConfigByType.polling.safeParse(rawConfig);
  if (!parsed.success) throw validationError(fieldsFromIssues(parsed.error.issues));
  const config = parsed.data;
  try {
    const headers = await pollAuthHeaders(deps, organizationId, config);
    const items = await fetchItems(deps.http, config, headers, PREVIEW_TIMEOUT_MS);
    return {
      status: 'ok' as const,
      item_count: items.length,
      items: items.slice(0, PREVIEW_ITEMS).map((item) => ({ key: itemKey(item, config.dedup_key), item })),
    };
  } catch (error) {
    if (error instanceof PollFailure) return { status: 'error' as const, error: error.error };
    throw error;
  }
}
