import type { paths } from '$api/schema';

export type WebhookEventName =
  paths['/webhooks']['post']['requestBody']['content']['application/json']['events'][number];

/** The events a webhook can subscribe to (DESIGN §8), with what each means. */
export const WEBHOOK_EVENTS: { name: WebhookEventName; help: string }[] = [
  { name: 'execution.completed', help: 'an execution finished successfully' },
  { name: 'execution.failed', help: 'an execution failed' },
  { name: 'execution.partial', help: 'an execution finished with some steps failed' },
  { name: 'execution.waiting', help: 'an execution is waiting (delay or event)' },
  { name: 'workflow.created', help: 'a workflow was created' },
  { name: 'workflow.updated', help: 'a workflow was changed' },
  { name: 'workflow.deleted', help: 'a workflow was deleted' },
];
