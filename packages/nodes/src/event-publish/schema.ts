import { z } from 'zod';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { eventPublishWorkflow } from './workflow';

export const EventPublishConfig = z.object({
  event: z.string().regex(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/, 'must look like category.action'),
  /** Values may contain expressions; the default payload is the trigger. */
  payload: z.record(z.string(), z.unknown()).optional(),
});

export const eventPublish = defineNodeType({
  type: 'action.event.publish',
  name: 'Publish event',
  category: 'flow',
  description: 'Fires an event inside the organization; active workflows listening for it start.',
  icon: 'megaphone',
  config: EventPublishConfig,
  output: z.object({ workflows_triggered: z.number().int() }),
  outputs: MAIN_OUTPUT,
  workflow: eventPublishWorkflow,
  runner: async () => (await import('./run')).eventPublishRunner,
});
