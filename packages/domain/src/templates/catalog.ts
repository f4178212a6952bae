import { allTemplates, findTemplate, type TemplateCategory, type TemplateFile } from '@weft/templates';
import { notFound } from '../errors';
import { WorkflowInput } from '../workflows/workflow-input';

/** What GET /templates lists: enough to choose, without the whole graph. */
export function presentTemplateSummary(template: TemplateFile) {
  const { workflow } = template;
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    category: template.category,
    tags: template.tags,
    modules: template.modules,
    trigger_type: workflow.trigger_type,
    trigger_config: workflow.trigger_config,
    node_types: [...new Set(workflow.nodes.map((n) => n.type))],
    node_count: workflow.nodes.length,
  };
}

/** GET /templates/{id}: the summary plus the complete workflow and its sample trigger data. */
export function presentTemplate(template: TemplateFile) {
  return {
    ...presentTemplateSummary(template),
    workflow: template.workflow,
    sample: template.sample,
  };
}

export function listTemplates(input: { category?: TemplateCategory; search?: string }) {
  const needle = input.search?.trim().toLowerCase();
  return allTemplates()
    .filter((t) => input.category === undefined || t.category === input.category)
    .filter(
      (t) =>
        !needle ||
        [t.name, t.description, ...t.tags, t.workflow.trigger_type].some((text) =>
          text.toLowerCase().includes(needle),
        ),
    )
    .map(presentTemplateSummary);
}

export function getTemplate(id: string): TemplateFile {
  const template = findTemplate(id);
  if (!template) throw notFound('Template');
  return template;
}

/**
 * The template's workflow as a save would check it, always as a `draft`: a clone needs its modules
 * and URLs reviewed before it runs. Throws the first problem; the build test keeps that from happening.
 */
export function templateWorkflowInput(template: TemplateFile): WorkflowInput {
  const parsed = WorkflowInput.safeParse({ ...template.workflow, status: 'draft' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`template ${template.id}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}
