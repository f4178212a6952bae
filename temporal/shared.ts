import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Names shared by the API (which starts workflows), the worker and the dev server. Public: stable. */
export const DEFAULT_TASK_QUEUE = 'weft';

export const SEARCH_ATTRIBUTES = {
  organizationId: defineSearchAttributeKey('WeftOrgId', SearchAttributeType.KEYWORD),
  workflowId: defineSearchAttributeKey('WeftWorkflowId', SearchAttributeType.KEYWORD),
  trigger: defineSearchAttributeKey('WeftTrigger', SearchAttributeType.KEYWORD),
} as const;

/** Temporal workflow id of an execution. */
export function executionWorkflowId(executionId: string): string {
  return `exec-${executionId}`;
}
