import { schema, type Tx, withTenant } from '@weft/db';
import { and, count, desc, eq } from 'drizzle-orm';
import type { ServiceContext } from '../context';
import { notFound } from '../errors';
import type { PageRequest } from '../pagination';
import type { WorkflowResource } from './present';

/** Records a saved version in the save's own transaction (history and change commit together). */
export async function recordWorkflowVersion(tx: Tx, ctx: ServiceContext, workflow: WorkflowResource) {
  const { id, version, created_at: _created, updated_at: _updated, ...definition } = workflow;
  await tx.insert(schema.workflowVersions).values({
    organizationId: ctx.organizationId,
    workflowId: id,
    version,
    snapshot: definition,
    savedByUserId: ctx.actor.userId ?? null,
    savedByApiKeyId: ctx.actor.apiKeyId ?? null,
  });
}

const presentVersion = (row: typeof schema.workflowVersions.$inferSelect) => ({
  version: row.version,
  saved_at: row.createdAt.toISOString(),
  saved_by_user_id: row.savedByUserId,
  saved_by_api_key_id: row.savedByApiKeyId,
});

async function assertWorkflow(tx: Tx, workflowId: string) {
  const [found] = await tx
    .select({ id: schema.workflows.id })
    .from(schema.workflows)
    .where(eq(schema.workflows.id, workflowId));
  if (!found) throw notFound('Workflow');
}

/** The versions of a workflow, newest first (without their graphs). */
export async function listWorkflowVersions(ctx: ServiceContext, workflowId: string, page: PageRequest) {
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    await assertWorkflow(tx, workflowId);
    const v = schema.workflowVersions;
    const [total] = await tx.select({ n: count() }).from(v).where(eq(v.workflowId, workflowId));
    const rows = await tx
      .select()
      .from(v)
      .where(eq(v.workflowId, workflowId))
      .orderBy(desc(v.version))
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage);
    return { rows: rows.map(presentVersion), total: total?.n ?? 0 };
  });
}

/** One saved version with its whole definition (trigger, nodes, edges; secrets masked). */
export async function getWorkflowVersion(ctx: ServiceContext, workflowId: string, version: number) {
  const row = await withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const v = schema.workflowVersions;
    const [found] = await tx
      .select()
      .from(v)
      .where(and(eq(v.workflowId, workflowId), eq(v.version, version)));
    return found;
  });
  if (!row) throw notFound('Workflow version');
  return { ...presentVersion(row), workflow_id: row.workflowId, definition: row.snapshot };
}
