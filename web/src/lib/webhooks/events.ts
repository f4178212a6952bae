import { WEBHOOK_EVENTS as EVENT_NAMES } from '$api/enums';

export type WebhookEventName = (typeof EVENT_NAMES)[number];

const HELP: Record<WebhookEventName, string> = {
  'execution.completed': 'an execution finished successfully',
  'execution.failed': 'an execution failed',
  'execution.partial': 'an execution finished with some steps failed',
  'execution.waiting': 'an execution is waiting (delay or event)',
  'workflow.created': 'a workflow was created',
  'workflow.updated': 'a workflow was changed',
  'workflow.deleted': 'a workflow was deleted',
};

/** The events a webhook can subscribe to (from the generated client), with what each means. */
export const WEBHOOK_EVENTS = EVENT_NAMES.map((name) => ({ name, help: HELP[name] }));
