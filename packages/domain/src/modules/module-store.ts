import { type Database, postgresErrorCode, schema, UNIQUE_VIOLATION, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { VerbArgs } from '../context';
import { openCredentialSecrets, sealFields, withoutMasks } from '../credentials/store';
import type { SecretBox } from '../encryption';
import { AppError, fieldsFromIssues, notFound, validationError } from '../errors';
import { MODULE_SCHEMAS, MODULE_SECRET_FIELDS, type ModuleName } from './module-config';

export interface ModuleDeps {
  secrets: SecretBox;
}

type ModuleRow = typeof schema.organizationModules.$inferSelect;

/** A module as the API answers it: its config with secret fields masked. Never a secret. */
export function presentModule(row: ModuleRow) {
  return {
    module: row.module,
    config: { ...row.publicConfig, ...row.masks },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** What the audit trail keeps: public fields and which secrets exist, no secret (not even masked). */
function audited(row: ModuleRow) {
  return { module: row.module, config: row.publicConfig, secret_fields: Object.keys(row.masks).sort() };
}

async function findModuleRow(db: Database, organizationId: string, module: ModuleName) {
  const m = schema.organizationModules;
  const [row] = await withTenant(db, organizationId, (tx) =>
    tx
      .select()
      .from(m)
      .where(and(eq(m.organizationId, organizationId), eq(m.module, module))),
  );
  return row ?? null;
}

export async function getModule({ ctx, input }: VerbArgs<{ module: ModuleName }>) {
  const row = await findModuleRow(ctx.db, ctx.organizationId, input.module);
  if (!row) throw new AppError('not_found', `The ${input.module} module is not configured`);
  return presentModule(row);
}

/**
 * PUT /modules/{name}: the whole config. A secret field left out (or sent back masked) keeps the
 * stored value while the provider and the place secrets go to stay the same (see sameDestination).
 */
export async function putModule({
  ctx,
  input,
  deps,
}: VerbArgs<{ module: ModuleName; config: unknown }> & { deps: ModuleDeps }) {
  const { module } = input;
  const existing = await findModuleRow(ctx.db, ctx.organizationId, module);
  const raw =
    typeof input.config === 'object' && input.config !== null
      ? (input.config as Record<string, unknown>)
      : null;
  // A masked value sent back (GET, edit, PUT) means "keep the stored secret", like a left-out one.
  const given = raw ? withoutMasks(raw, MODULE_SECRET_FIELDS[module]) : {};
  const kept =
    existing && raw && sameDestination(module, existing.publicConfig, raw)
      ? openCredentialSecrets(existing.secretCiphertext, deps.secrets)
      : {};
  const merged = raw ? { ...kept, ...given } : input.config;
  const parsed = MODULE_SCHEMAS[module].safeParse(merged);
  if (!parsed.success) throw validationError(fieldsFromIssues(parsed.error.issues));
  const config = parsed.data as Record<string, unknown>;
  const { publicFields, ...sealed } = sealFields(config, MODULE_SECRET_FIELDS[module], deps.secrets);
  const stored = { publicConfig: publicFields, ...sealed };
  const changed = MODULE_SECRET_FIELDS[module].filter((k) => given[k] !== undefined && given[k] !== kept[k]);
  const m = schema.organizationModules;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await phoneNumberTaken(
      tx
        .insert(m)
        .values({ organizationId: ctx.organizationId, module, ...stored })
        .onConflictDoUpdate({
          target: [m.organizationId, m.module],
          set: { ...stored, updatedAt: new Date() },
        })
        .returning(),
    );
    if (!row) throw new Error('upsert returned no row');
    await recordAudit(tx, ctx, {
      action: existing ? 'updated' : 'created',
      entityType: 'module',
      entityId: ctx.organizationId,
      ...(existing ? { oldValues: audited(existing) } : {}),
      newValues: { ...audited(row), secrets_changed: changed.sort() },
    });
    return presentModule(row);
  });
}

/** A sending number belongs to one organization: inbound messages are routed by it. */
async function phoneNumberTaken<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      throw new AppError('conflict', 'This phone_number_id is already configured by another organization.');
    }
    throw error;
  }
}

/**
 * Whether the stored secrets may be kept: same provider and same place they are sent to. A new SMTP
 * host or AI base URL must come with its secrets again, or a stored key would follow it anywhere.
 */
function sameDestination(
  module: ModuleName,
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
): boolean {
  const fields = { chat: ['provider'], email: ['host', 'port'], ai: ['provider', 'base_url'] }[module];
  return fields.every((field) => stored[field] === next[field]);
}

export async function deleteModule({ ctx, input }: VerbArgs<{ module: ModuleName }>) {
  const m = schema.organizationModules;
  await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const [row] = await tx
      .delete(m)
      .where(and(eq(m.organizationId, ctx.organizationId), eq(m.module, input.module)))
      .returning();
    if (!row) throw notFound(`The ${input.module} module configuration`);
    await recordAudit(tx, ctx, {
      action: 'deleted',
      entityType: 'module',
      entityId: ctx.organizationId,
      oldValues: audited(row),
    });
  });
}

/** The module's config in clear, for the activity or check that is about to use it; null when unset. */
export async function openModuleConfig(
  db: Database,
  secrets: SecretBox,
  organizationId: string,
  module: ModuleName,
): Promise<Record<string, unknown> | null> {
  const row = await findModuleRow(db, organizationId, module);
  if (!row) return null;
  return { ...row.publicConfig, ...openCredentialSecrets(row.secretCiphertext, secrets) };
}
