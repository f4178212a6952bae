import { type Database, schema, withTenant } from '@weft/db';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { VerbArgs } from '../context';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import { openModuleConfig } from '../modules/module-store';
import { OutboundHttpError } from '../outbound-http/errors';
import type { ChatProviderDeps } from './send';

const TemplatePage = z.object({
  data: z.array(
    z.object({
      name: z.string().max(512),
      language: z.string().max(20),
      status: z.string().max(40),
      category: z.string().max(40).optional(),
      components: z.array(z.object({ type: z.string(), text: z.string().optional() })).default([]),
    }),
  ),
  paging: z.object({ next: z.string().optional() }).optional(),
});

const MAX_PAGES = 20;
const textDecoder = new TextDecoder();

function presentTemplate(row: typeof schema.chatTemplates.$inferSelect) {
  return {
    name: row.name,
    language: row.language,
    status: row.status,
    category: row.category,
    body_variables: row.bodyVariables,
    synced_at: row.syncedAt.toISOString(),
  };
}

export async function listChatTemplates({ ctx }: VerbArgs<Record<string, never>>) {
  const t = schema.chatTemplates;
  const rows = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx.select().from(t).where(eq(t.organizationId, ctx.organizationId)).orderBy(asc(t.name), asc(t.language)),
  );
  return rows.map(presentTemplate);
}

/** A template as stored: name (cloud) or content SID (gateway), language, status, variable count. */
interface SyncedTemplate {
  name: string;
  language: string;
  status: string;
  category: string | null;
  bodyVariables: number;
}

const GatewayPage = z.object({
  contents: z.array(
    z.object({
      sid: z.string().max(64),
      language: z.string().max(20).default(''),
      variables: z.record(z.string(), z.unknown()).nullable().default({}),
      approval_requests: z.record(z.string(), z.unknown()).nullable().default(null),
    }),
  ),
  meta: z.object({ next_page_url: z.string().nullable().optional() }).optional(),
});

/** GET every page of a provider list, following its next-page links on the same origin only. */
async function everyPage<T>(
  deps: ChatProviderDeps,
  first: string,
  headers: Record<string, string>,
  read: (body: unknown) => { items: T[]; next?: string | null },
): Promise<T[]> {
  const origin = new URL(first).origin;
  const items: T[] = [];
  let url: string | undefined = first;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const response = await deps.http
      .request({ method: 'GET', url, headers, timeoutMs: 30_000 })
      .catch((error: unknown) => {
        // Unreachable (DNS, refused, timeout, a blocked address): answered like a refusal, not a 500.
        if (!(error instanceof OutboundHttpError)) throw error;
        throw new AppError('conflict', `The chat provider could not be reached: ${error.message}`);
      });
    if (response.status !== 200) {
      throw new AppError(
        'conflict',
        `The chat provider refused the template list (HTTP ${response.status}).`,
      );
    }
    let page_: { items: T[]; next?: string | null };
    try {
      page_ = read(JSON.parse(textDecoder.decode(response.body)));
    } catch {
      throw new AppError('conflict', 'The chat provider answered an unexpected template list.');
    }
    items.push(...page_.items);
    const next = page_.next;
    // A next page elsewhere than the provider we asked is not ours to fetch.
    url = next && new URL(next, url).origin === origin ? new URL(next, url).toString() : undefined;
  }
  return items;
}

/** The cloud account's `message_templates`; a template's variables are the `{{n}}` of its body. */
async function cloudTemplates(
  deps: ChatProviderDeps,
  module: Record<string, unknown>,
): Promise<SyncedTemplate[]> {
  const first = new URL(
    `/v21.0/${encodeURIComponent(String(module.business_account_id))}/message_templates`,
    deps.cloudBaseUrl,
  );
  first.search = 'fields=name,language,status,category,components&limit=100';
  const templates = await everyPage(
    deps,
    first.toString(),
    { authorization: `Bearer ${module.access_token}` },
    (body) => {
      const page = TemplatePage.parse(body);
      return { items: page.data, next: page.paging?.next };
    },
  );
  return templates.map((template) => ({
    name: template.name,
    language: template.language,
    status: template.status,
    category: template.category ?? null,
    bodyVariables: new Set(
      (template.components.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '').match(
        /\{\{\s*\d+\s*\}\}/g,
      ) ?? [],
    ).size,
  }));
}

/**
 * The gateway's Content API (`GET /v1/ContentAndApprovals`): a template is sent by its content SID,
 * so that is its name here; its WhatsApp approval is either flat or under `whatsapp`.
 */
async function gatewayTemplates(
  deps: ChatProviderDeps,
  module: Record<string, unknown>,
): Promise<SyncedTemplate[]> {
  const base = deps.gatewayContentBaseUrl ?? 'https://content.twilio.com';
  const basic = Buffer.from(`${module.account_sid}:${module.auth_token}`).toString('base64');
  const contents = await everyPage(
    deps,
    new URL('/v1/ContentAndApprovals?PageSize=100', base).toString(),
    { authorization: `Basic ${basic}` },
    (body) => {
      const page = GatewayPage.parse(body);
      return { items: page.contents, next: page.meta?.next_page_url };
    },
  );
  return contents.map((content) => {
    const requests = content.approval_requests ?? {};
    const approval = (
      typeof requests.whatsapp === 'object' && requests.whatsapp !== null ? requests.whatsapp : requests
    ) as {
      status?: unknown;
      category?: unknown;
    };
    return {
      name: content.sid,
      language: content.language,
      status: typeof approval.status === 'string' ? approval.status.toUpperCase() : 'UNSUBMITTED',
      category: typeof approval.category === 'string' ? approval.category : null,
      bodyVariables: Object.keys(content.variables ?? {}).length,
    };
  });
}

/**
 * Refreshes the organization's templates from its chat provider (every page): the stored list
 * becomes exactly what the provider has.
 */
export async function syncChatTemplates(
  db: Database,
  deps: ChatProviderDeps & { secrets: SecretBox },
  organizationId: string,
): Promise<ReturnType<typeof presentTemplate>[]> {
  const module = await openModuleConfig(db, deps.secrets, organizationId, 'chat');
  if (!module) throw new AppError('not_found', 'The chat module is not configured');
  const templates =
    module.provider === 'gateway' ? await gatewayTemplates(deps, module) : await cloudTemplates(deps, module);
  const t = schema.chatTemplates;
  await withTenant(db, organizationId, async (tx) => {
    await tx.delete(t).where(eq(t.organizationId, organizationId));
    if (templates.length === 0) return;
    await tx
      .insert(t)
      .values(templates.map((template) => ({ organizationId, ...template })))
      .onConflictDoNothing();
  });
  return listChatTemplates({ ctx: { db, organizationId, actor: {} }, input: {} });
}

/** The stored template's status and variable count; null when the organization has no such template. */
export async function findChatTemplate(db: Database, organizationId: string, name: string, language: string) {
  const t = schema.chatTemplates;
  const [row] = await withTenant(db, organizationId, (tx) =>
    tx
      .select({ status: t.status, bodyVariables: t.bodyVariables })
      .from(t)
      .where(and(eq(t.organizationId, organizationId), eq(t.name, name), eq(t.language, language))),
  );
  return row ?? null;
}
