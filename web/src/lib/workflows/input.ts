import type { components, paths } from '$api/schema';

export type Workflow = components['schemas']['Workflow'];
export type WorkflowInput = paths['/workflows']['post']['requestBody']['content']['application/json'];

/** A fetched workflow as the body PUT/POST take (the read-only fields dropped). */
export function toWorkflowInput(workflow: Workflow, changes: Partial<WorkflowInput> = {}): WorkflowInput {
  // The stored trigger type and config were validated together (the document pairs each type with
  // its config schema, which the compiler cannot see in a stored workflow's separate fields).
  return {
    name: workflow.name,
    description: workflow.description,
    // Stored in canonical form, always one of the input's trigger types.
    trigger_type: workflow.trigger_type,
    trigger_config: workflow.trigger_config,
    status: workflow.status,
    nodes: workflow.nodes,
    edges: workflow.edges,
    ...changes,
  } as WorkflowInput;
}

/** The exported file: the workflow's definition, importable here or on another installation. */
export function exportWorkflow(workflow: Workflow) {
  const { status: _status, ...definition } = toWorkflowInput(workflow);
  const blob = new Blob([`${JSON.stringify({ weft_workflow: 1, ...definition }, null, 2)}\n`], {
    type: 'application/json',
  });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${workflow.name.replace(/[^\w.-]+/g, '-').slice(0, 80) || 'workflow'}.json`;
  a.click();
  URL.revokeObjectURL(url);
}

/** Reads an exported file back into a create body (imported as a draft). */
export function parseWorkflowFile(text: string): WorkflowInput {
  const parsed = JSON.parse(text) as Partial<WorkflowInput> & { weft_workflow?: number };
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof parsed.name !== 'string' ||
    typeof parsed.trigger_type !== 'string'
  ) {
    throw new Error(
      'This file is not an exported Weft workflow (it needs at least "name" and "trigger_type").',
    );
  }
  const { weft_workflow: _version, ...definition } = parsed;
  return { ...(definition as WorkflowInput), status: 'draft' };
}
