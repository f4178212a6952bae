import { schema, withTenant } from '@weft/db';
import { and, asc, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';

export interface ToolDescription {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  workflow_id: string;
}

/** The organization's active tool workflows, by name: what MCP's tools/list shows and agents pick from. */
export async function listToolWorkflows({ ctx }: VerbArgs<unknown>): Promise<ToolDescription[]> {
  const t = schema.workflows;
  const rows = await withTenant(ctx.db, ctx.organizationId, (tx) =>
    tx
      .select({ id: t.id, config: t.triggerConfig })
      .from(t)
      .where(and(eq(t.organizationId, ctx.organizationId), eq(t.triggerType, 'tool'), eq(t.status, 'active')))
      .orderBy(asc(t.createdAt)),
  );
  return rows
    .map((row) => ({
      name: String(row.config.name),
      description: String(row.config.description ?? ''),
      input_schema: (row.config.input_schema ?? { type: 'object' }) as Record<string, unknown>,
      workflow_id: row.id,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
