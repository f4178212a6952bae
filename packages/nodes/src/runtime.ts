/**
 * What workflow code needs from the node package: each type's `workflow.ts` (where it runs, its
 * traits, and its workflow-side code), looked up by type and version. Free of zod for the reason
 * given in @weft/graph/runtime (module state is rebuilt per workflow run).
 *
 * Only types with a `workflow.ts` are listed: every other type runs in an activity with the
 * default traits. The registry test checks this list against the registry (registry.ts).
 */
import { aiAgentWorkflow } from './ai-agent/workflow';
import { canonicalNodeType } from './aliases';
import { approvalWorkflow } from './approval/workflow';
import { chatSendWorkflow } from './chat-send/workflow';
import { chatSendTemplateWorkflow } from './chat-send-template/workflow';
import { codeWorkflow } from './code/workflow';
import { conditionWorkflow } from './condition/workflow';
import { delayWorkflow } from './delay/workflow';
import { eventPublishWorkflow } from './event-publish/workflow';
import { httpRequestWorkflow } from './http-request/workflow';
import { loopWorkflow } from './loop/workflow';
import { mergeWorkflow } from './merge/workflow';
import { maskPhoneText } from './redact';
import { switchWorkflow } from './switch/workflow';
import { transformWorkflow } from './transform/workflow';
import { waitForEventWorkflow } from './wait-for-event/workflow';
import { workflowExecuteWorkflow } from './workflow-execute/workflow';
import type { WorkflowNodeType } from './workflow-node';

export const WORKFLOW_NODE_TYPES: readonly WorkflowNodeType[] = [
  httpRequestWorkflow,
  transformWorkflow,
  conditionWorkflow,
  switchWorkflow,
  loopWorkflow,
  mergeWorkflow,
  delayWorkflow,
  waitForEventWorkflow,
  codeWorkflow,
  chatSendWorkflow,
  chatSendTemplateWorkflow,
  eventPublishWorkflow,
  workflowExecuteWorkflow,
  aiAgentWorkflow,
  approvalWorkflow,
];

/**
 * What the interpreter knows about a node of this type and version: its `workflow.ts` entry for
 * that version, else the type's entry for every version, else an activity with default traits
 * (an unknown type then fails in the activity, as `unknown_node_type`).
 */
export function workflowNodeOf(type: string, version = 1): WorkflowNodeType {
  const canonical = canonicalNodeType(type);
  let forEveryVersion: WorkflowNodeType | undefined;
  for (const node of WORKFLOW_NODE_TYPES) {
    if (node.type !== canonical) continue;
    if (node.version === version) return node;
    if (node.version === undefined) forEveryVersion = node;
  }
  return forEveryVersion ?? { type: canonical, runsIn: 'activity' };
}

/** A step's resolved config as it may be stored: the type's phone-number fields masked (DESIGN §12.4). */
export function redactResolvedConfig(node: WorkflowNodeType, config: unknown): unknown {
  const fields = node.maskedFields;
  if (!fields || config === null || typeof config !== 'object') return config;
  const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const field of fields)
    if (typeof copy[field] === 'string') copy[field] = maskPhoneText(copy[field] as string);
  return copy;
}

export type * from './ai-agent/contract';
export { canonicalNodeType, NODE_TYPE_ALIASES } from './aliases';
export { maskPhoneText } from './redact';
export { disabledHandle, handleOfOutput, replaysFromRecording } from './workbench';
export * from './workflow-node';
