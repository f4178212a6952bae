import { type Database, schema, withTenant } from '@weft/db';
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { VerbArgs } from '../context';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import { openModuleConfig } from '../modules/module-store';
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

/**
 * Refreshes the organization's templates from the cloud provider (`GET /v21.0/{business_account_id}/
 * message_templates`, every page): the stored list becomes exactly what the provider has.
 */
export async function syncChatTemplates(
  db: Database,
  deps: ChatProviderDeps & { secrets: SecretBox },
  organizationId: string,
): Promise<ReturnType<typeof presentTemplate>[]> {
  const module = await openModuleConfig(db, deps.secrets, organizationId, 'chat');
  if (!module) throw new AppError('not_found', 'The chat module is not configured');
  if (module.provider !== 'cloud') {
    throw new AppError(
      'validation_error',
      'Template sync reads the cloud provider; gateway templates are sent by content SID.',
      {
        provider: ['must be cloud to sync templates'],
      },
    );
  }
  const base = new URL(deps.cloudBaseUrl);
  let url: string | undefined =
    new URL(
      `/v21.0/${encodeURIComponent(String(module.business_account_id))}/message_templates`,
      base,
    ).toString() + '?fields=name,language,status,category,components&limit=100';
  const templates: z.infer<typeof TemplatePage>['data'] = [];
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const response = await deps.http.request({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${module.access_token}` },
      timeoutMs: 30_000,
    });
    if (response.status !== 200) {
      throw new AppError(
        'conflict',
        `The chat provider refused the template list (HTTP ${response.status}).`,
      );
    }
    const parsed = TemplatePage.safeParse(JSON.parse(textDecoder.decode(response.body)));
    if (!parsed.success)
      throw new AppError('conflict', 'The chat provider answered an unexpected template list.');
    templates.push(...parsed.data.data);
    const next = parsed.data.paging?.next;
    // Only pages of the same provider are followed: a `next` elsewhere is not ours to fetch.
    url = next && new URL(next).origin === base.origin ? next : undefined;
  }
  const t = schema.chatTemplates;
  await withTenant(db, organizationId, async (tx) => {
    await tx.delete(t).where(eq(t.organizationId, organizationId));
    if (templates.length === 0) return;
    await tx
      .insert(t)
      .values(
        templates.map((template) => ({
          organizationId,
          name: template.name,
          language: template.language,
          status: template.status,
          category: template.category ?? null,
          bodyVariables: new Set(
            (template.components.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '').match(
              /\{\{\s*\d+\s*\}\}/g,
            ) ?? [],
          ).size,
        })),
      )
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
