import { readFile, writeFile } from 'node:fs/promises';
import {
  AppError,
  createSecretBox,
  createWorkflow,
  getWorkflow,
  listWorkflows,
  type ServiceContext,
  WorkflowInput,
} from '@weft/domain';
import { z } from 'zod';
import { withAppDatabase } from '../database';
import { printResult } from '../output';

/**
 * `weft workflows export|import`: an organization's workflows as one JSON file, to move them between
 * organizations or installations, or keep them in git. What travels is what a PUT takes (name,
 * description, trigger, graph, sticky notes); ids, versions and status do not: imports are drafts.
 * Hook secrets never leave the database (the file would carry only their mask): an imported webhook
 * workflow gets no secret, and credential references must exist in the target organization.
 */
export const EXPORT_FORMAT = 'weft.workflows/v1';

const ExportedWorkflow = z.object({
  name: z.string(),
  description: z.string().nullish(),
  trigger_type: z.string(),
  trigger_config: z.record(z.string(), z.unknown()),
  nodes: z.array(z.unknown()),
  edges: z.array(z.unknown()),
  notes: z.array(z.unknown()).optional(),
});
const ExportFile = z.object({
  format: z.literal(EXPORT_FORMAT),
  exported_at: z.string(),
  workflows: z.array(ExportedWorkflow),
});

const context = (db: ServiceContext['db'], organizationId: string): ServiceContext => ({
  db,
  organizationId,
  actor: {},
});

export async function workflowsExportCommand(options: {
  org: string;
  file: string;
  json: boolean;
}): Promise<void> {
  const workflows = await withAppDatabase(
    async (db) => {
      const ctx = context(db, options.org);
      const exported: z.infer<typeof ExportedWorkflow>[] = [];
      for (let page = 1; ; page++) {
        const { rows, total } = await listWorkflows({ ctx, input: { page, perPage: 100 } });
        for (const summary of rows) {
          const full = await getWorkflow({ ctx, input: { id: summary.id } });
          const { secret: _masked, ...triggerConfig } = full.trigger_config as Record<string, unknown>;
          exported.push({
            name: full.name,
            description: full.description,
            trigger_type: full.trigger_type,
            trigger_config: triggerConfig,
            nodes: full.nodes as unknown[],
            edges: full.edges as unknown[],
            notes: (full.notes ?? []) as unknown[],
          });
        }
        if (page * 100 >= total || rows.length === 0) break;
      }
      return exported;
    },
    { org: options.org, readOnly: true },
  );
  const file = { format: EXPORT_FORMAT, exported_at: new Date().toISOString(), workflows };
  await writeFile(options.file, `${JSON.stringify(file, null, 2)}\n`);
  printResult(options.json, { file: options.file, exported: workflows.length }, [
    `Exported ${workflows.length} workflow(s) to ${options.file}`,
  ]);
}

/** The refusal's first field error (`nodes.1.config.credential_id: …`) says more than its headline. */
function describeFailure(error: unknown): string {
  if (error instanceof AppError) {
    const [field, messages] = Object.entries(error.fields)[0] ?? [];
    if (field) return `${field}: ${[messages].flat()[0]}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function workflowsImportCommand(options: {
  org: string;
  file: string;
  json: boolean;
}): Promise<void> {
  let parsed: z.infer<typeof ExportFile>;
  try {
    parsed = ExportFile.parse(JSON.parse(await readFile(options.file, 'utf8')));
  } catch (error) {
    const reason = error instanceof z.ZodError ? error.issues[0]?.message : (error as Error).message;
    throw new Error(`${options.file} is not a ${EXPORT_FORMAT} export: ${reason}`);
  }
  const results = await withAppDatabase(
    async (db, env) => {
      const ctx = context(db, options.org);
      const secrets = createSecretBox(env.APP_KEY, env.APP_KEYS_PREVIOUS);
      const outcome: { name: string; id?: string; error?: string }[] = [];
      // One at a time and each on its own: a workflow that no longer validates (a credential missing
      // here, say) is reported and the others still come in.
      for (const workflow of parsed.workflows) {
        const input = WorkflowInput.safeParse({ ...workflow, status: 'draft' });
        if (!input.success) {
          const issue = input.error.issues[0];
          outcome.push({ name: workflow.name, error: `${issue?.path.join('.')}: ${issue?.message}` });
          continue;
        }
        try {
          const created = await createWorkflow({ ctx, input: input.data, secrets });
          outcome.push({ name: workflow.name, id: created.id });
        } catch (error) {
          outcome.push({ name: workflow.name, error: describeFailure(error) });
        }
      }
      return outcome;
    },
    { org: options.org },
  );
  const failed = results.filter((r) => r.error);
  printResult(
    options.json,
    { imported: results.length - failed.length, failed: failed.length, workflows: results },
    [
      `Imported ${results.length - failed.length} of ${results.length} workflow(s) as drafts`,
      ...results.map((r) => (r.error ? `  ✗ ${r.name}: ${r.error}` : `  ✓ ${r.name} → ${r.id}`)),
    ],
  );
  if (failed.length > 0) process.exitCode = 1;
}
