import { randomBytes } from 'node:crypto';
import { schema, withTenant } from '@weft/db';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { validationError } from '../errors';
import type { WebhookDeps } from './deps';
import { presentWebhook } from './present';
import { checkWebhookUrl } from './url-policy';
import type { WebhookInput } from './webhook-input';

/**
 * A Standard Webhooks secret: `whsec_` + 32 random bytes in standard (padded) base64, so the
 * official libraries take it as is (the key is the decoded bytes, see signing.ts). The prefix also
 * lets secret scanners recognise a leaked one.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Refuses a URL that resolves to a private address (422 on `url`), before anything is stored. */
export async function assertWebhookUrlAllowed(url: string, deps: WebhookDeps): Promise<void> {
  const problem = await checkWebhookUrl(url, deps.ssrfAllowlist, deps.lookup);
  if (problem) throw validationError({ url: [problem] });
}

/** Creates a webhook. The answer carries the signing secret: the only time it is ever shown. */
export async function createWebhook({ ctx, input, deps }: VerbArgs<WebhookInput> & { deps: WebhookDeps }) {
  await assertWebhookUrlAllowed(input.url, deps);
  const secret = input.secret ?? generateWebhookSecret();
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .insert(schema.webhooks)
      .values({
        organizationId: ctx.organizationId,
        url: input.url,
        events: input.events,
        secretCiphertext: deps.secrets.encrypt(secret),
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const webhook = presentWebhook(row);
    await recordAudit(tx, ctx, {
      action: 'created',
      entityType: 'webhook',
      entityId: row.id,
      newValues: webhook,
    });
    return { ...webhook, secret };
  });
}
