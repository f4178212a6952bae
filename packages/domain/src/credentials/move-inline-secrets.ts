import { type Database, schema, type Tx, withTenant } from '@weft/db';
import { isInlineSecretHeader } from '@weft/graph';
import { eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit-logs/record';
import type { ServiceContext } from '../context';
import type { SecretBox } from '../encryption';
import { sealHookSecret } from '../workflows/hook-secret';
import { presentWorkflow } from '../workflows/present';
import type { CredentialType } from './credential-types';
import { sealCredentialFields } from './store';

export interface MoveReport {
  /** Workflows changed. */
  workflows: number;
  /** Credentials created from plain headers. */
  credentials: number;
  /** Hook secrets sealed. */
  hookSecrets: number;
  /** Secret headers left in place: a second one on the same node or poll (one credential_id each). */
  leftInPlace: number;
}

type Headers = Record<string, string>;

/** The credential a plain secret header becomes: a bearer token when it is one, else the header itself. */
function credentialFor(
  name: string,
  value: string,
): { type: CredentialType; fields: Record<string, string> } {
  const bearer = /^bearer\s+(\S+)$/i.exec(value);
  if (name.toLowerCase() === 'authorization' && bearer?.[1]) {
    return { type: 'http_bearer', fields: { token: bearer[1] } };
  }
  return { type: 'http_header', fields: { name, value } };
}

/**
 * Moves secrets that workflows saved before credentials existed hold in clear: a plain secret header
 * of an HTTP node or a poll becomes a credential named after the workflow, and the config names it
 * by `credential_id`; a hook's clear `secret` is sealed. Idempotent (a second run finds nothing);
 * run by `weft migrate` and at every start of `weft up`. Each workflow moves in its own tenancy
 * transaction, audited as a change by the system.
 */
export async function moveInlineSecrets(db: Database, secrets: SecretBox): Promise<MoveReport> {
  const report: MoveReport = { workflows: 0, credentials: 0, hookSecrets: 0, leftInPlace: 0 };
  const candidates = await db.execute<{ workflow_id: string; organization_id: string }>(
    sql`select * from weft_list_inline_secret_candidates()`,
  );
  for (const candidate of candidates) {
    const ctx = { db, organizationId: candidate.organization_id, actor: {} };
    await withTenant(db, candidate.organization_id, (tx) =>
      moveOne(tx, ctx, candidate.workflow_id, secrets, report),
    );
  }
  return report;
}

async function moveOne(
  tx: Tx,
  ctx: ServiceContext,
  workflowId: string,
  secrets: SecretBox,
  report: MoveReport,
) {
  const { organizationId } = ctx;
  const w = schema.workflows;
  const [row] = await tx.select().from(w).where(eq(w.id, workflowId)).for('update');
  if (!row) return;
  let created = 0;
  /** Takes the first inline secret header out of `headers` into a new credential; returns its id. */
  const extract = async (
    headers: Headers,
    label: string,
  ): Promise<{ headers: Headers; credentialId?: string }> => {
    // Authorization first (the usual one), then by name: jsonb keeps keys in its own order.
    const secretNames = Object.keys(headers)
      .filter((name) => isInlineSecretHeader(name, headers[name]))
      .sort(
        (a, b) =>
          Number(b.toLowerCase() === 'authorization') - Number(a.toLowerCase() === 'authorization') ||
          a.localeCompare(b),
      );
    const [first, ...rest] = secretNames;
    if (first === undefined) return { headers };
    report.leftInPlace += rest.length;
    const { [first]: value, ...kept } = headers;
    const credential = credentialFor(first, String(value));
    const [saved] = await tx
      .insert(schema.credentials)
      .values({
        organizationId,
        name: await freeName(tx, organizationId, `${row.name} · ${label} · ${first}`.slice(0, 190)),
        type: credential.type,
        ...sealCredentialFields(credential.type, credential.fields, secrets),
      })
      .returning({ id: schema.credentials.id });
    created++;
    return { headers: kept, credentialId: saved?.id };
  };

  let triggerConfig = row.triggerConfig;
  const pollHeaders = triggerConfig.headers as Headers | undefined;
  if (row.triggerType === 'polling' && pollHeaders && triggerConfig.credential_id === undefined) {
    const moved = await extract(pollHeaders, 'poll');
    if (moved.credentialId)
      triggerConfig = { ...triggerConfig, headers: moved.headers, credential_id: moved.credentialId };
  }
  if (row.triggerType === 'webhook' && typeof triggerConfig.secret === 'string') {
    triggerConfig = sealHookSecret('webhook', triggerConfig, secrets);
    report.hookSecrets++;
  }
  const nodes: unknown[] = [];
  for (const node of row.nodes as { id: string; type: string; config: Record<string, unknown> }[]) {
    const headers = node.config?.headers as Headers | undefined;
    if (node.type !== 'action.http_request' || !headers || node.config.credential_id !== undefined) {
      nodes.push(node);
      continue;
    }
    const moved = await extract(headers, node.id);
    nodes.push(
      moved.credentialId
        ? { ...node, config: { ...node.config, headers: moved.headers, credential_id: moved.credentialId } }
        : node,
    );
  }
  if (created === 0 && triggerConfig === row.triggerConfig) return;
  const [updated] = await tx.update(w).set({ triggerConfig, nodes }).where(eq(w.id, row.id)).returning();
  if (!updated) return;
  report.workflows++;
  report.credentials += created;
  await recordAudit(tx, ctx, {
    action: 'updated',
    entityType: 'workflow',
    entityId: row.id,
    oldValues: {
      secrets_moved_to_credentials: created,
      hook_secret_sealed: triggerConfig !== row.triggerConfig,
    },
    newValues: presentWorkflow(updated),
  });
}

/** `base`, or `base (2)`, `base (3)`, … whichever the organization does not have yet. */
async function freeName(tx: Tx, organizationId: string, base: string): Promise<string> {
  const c = schema.credentials;
  const taken = new Set(
    (
      await tx
        .select({ name: c.name })
        .from(c)
        .where(sql`${c.organizationId} = ${organizationId} and ${c.name} like ${`${base}%`}`)
    ).map((r) => r.name),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} (${n})`)) return `${base} (${n})`;
}
