import { schema, type Tx } from '@weft/db';
import { and, eq, inArray } from 'drizzle-orm';
import { validationError } from '../errors';

/** The organization module each node type needs (DESIGN §7); the others need none. */
const NEEDS: Record<string, { module: 'email' | 'chat' | 'ai'; name: string }> = {
  'action.email.send': { module: 'email', name: 'e-mail' },
  'action.chat.send': { module: 'chat', name: 'chat' },
  'action.chat.send_template': { module: 'chat', name: 'chat' },
  'action.ai.prompt': { module: 'ai', name: 'AI' },
};

/**
 * Activating a workflow whose steps need a module the organization has not set up is refused (422)
 * with each such step and the module named: otherwise every run would end partial on
 * `module_not_configured`. Drafts and inactive workflows may still be saved with such steps.
 */
export async function assertModulesConfigured(
  tx: Tx,
  organizationId: string,
  workflow: { status?: string; nodes: readonly { id: string; type: string; name?: string }[] },
) {
  if (workflow.status !== 'active') return;
  const needing = workflow.nodes.flatMap((node, index) => {
    const need = NEEDS[node.type];
    return need ? [{ node, index, ...need }] : [];
  });
  if (needing.length === 0) return;
  const m = schema.organizationModules;
  const rows = await tx
    .select({ module: m.module })
    .from(m)
    .where(
      and(
        eq(m.organizationId, organizationId),
        inArray(
          m.module,
          needing.map((n) => n.module),
        ),
      ),
    );
  const configured = new Set(rows.map((r) => r.module));
  const missing = needing.filter((n) => !configured.has(n.module));
  if (missing.length === 0) return;
  const fields: Record<string, string[]> = {};
  for (const n of missing)
    fields[`nodes.${n.index}.type`] = [
      `needs the ${n.name} module, which is not set up for this organization (Modules page)`,
    ];
  const steps = missing.map((n) => `step “${n.node.name || n.node.id}” needs the ${n.name} module`);
  throw validationError(
    fields,
    `This workflow cannot be activated: ${steps.join('; ')}, not set up for this organization. ` +
      'Set it up on the Modules page, or save the workflow without activating it.',
  );
}
