import { TEMPLATE_REFERENCE } from '@weft/templates';
import type { VerbArgs } from '../context';
import type { SecretBox } from '../encryption';
import type { ExecutionEngine } from '../executions/execution-engine';
import { createWorkflow } from '../workflows/create';
import { getTemplate, templateWorkflowInput } from './catalog';

type CloneArgs = VerbArgs<{ id: string }> & {
  siteUrl?: string;
  engine?: ExecutionEngine;
  secrets: SecretBox;
};

type TemplateNode = ReturnType<typeof templateWorkflowInput>['nodes'][number];

/** An AI agent's tool workflows given as `template:<id>` are cloned too, and the tools point at the copies. */
async function withAgentToolsCloned(
  args: CloneArgs,
  node: TemplateNode,
  cloning: Set<string>,
): Promise<TemplateNode> {
  if (node.type !== 'action.ai.agent' || !Array.isArray(node.config.tools)) return node;
  const tools = [];
  for (const tool of node.config.tools as Record<string, unknown>[]) {
    const reference = TEMPLATE_REFERENCE.exec(String(tool.workflow_id ?? ''));
    if (!reference?.[1] || cloning.has(reference[1])) {
      tools.push(tool);
      continue;
    }
    const { workflow: callee } = await cloneWithCallees({ ...args, input: { id: reference[1] } }, cloning);
    tools.push({ ...tool, workflow_id: callee.id });
  }
  return { ...node, config: { ...node.config, tools } };
}

/**
 * POST /templates/{id}/clone: a new `draft` workflow in the caller's organization, audited like any
 * create. A template whose "Execute workflow" nodes (or AI agents' tools) call another template
 * (`template:<id>`) clones that one first and points the nodes at the copy, so the clone runs
 * without hand wiring.
 */
export async function cloneTemplate(args: CloneArgs) {
  const { workflow } = await cloneWithCallees(args, new Set());
  return workflow;
}

async function cloneWithCallees(
  args: CloneArgs,
  cloning: Set<string>,
): Promise<{ workflow: Awaited<ReturnType<typeof createWorkflow>> }> {
  const input = templateWorkflowInput(getTemplate(args.input.id));
  cloning.add(args.input.id);
  const nodes = [];
  for (const original of input.nodes) {
    const node = await withAgentToolsCloned(args, original, cloning);
    const reference =
      node.type === 'action.workflow.execute'
        ? TEMPLATE_REFERENCE.exec(String(node.config.workflow_id))
        : null;
    // A template calling itself (directly or in a circle) is refused by the build test; the set is a guard.
    if (!reference?.[1] || cloning.has(reference[1])) {
      nodes.push(node);
      continue;
    }
    const { workflow: callee } = await cloneWithCallees({ ...args, input: { id: reference[1] } }, cloning);
    nodes.push({ ...node, config: { ...node.config, workflow_id: callee.id } });
  }
  const workflow = await createWorkflow({
    ctx: args.ctx,
    input: { ...input, nodes },
    siteUrl: args.siteUrl,
    engine: args.engine,
    secrets: args.secrets,
  });
  return { workflow };
}
