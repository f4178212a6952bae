import { z } from 'zod';
import { Duration, Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { delayWorkflow } from './workflow';

/** Exactly one of `duration` or `until` (an ISO 8601 instant; may be an expression). */
export const DelayConfig = z
  .object({ duration: Duration.optional(), until: Template.min(1).optional() })
  .strict()
  .refine((c) => (c.duration === undefined) !== (c.until === undefined), {
    message: 'give exactly one of duration or until',
    path: ['duration'],
  });

export const delay = defineNodeType({
  type: 'action.delay',
  name: 'Delay',
  category: 'flow',
  description: 'Pauses the execution for a duration or until a point in time (a durable Temporal timer).',
  icon: 'clock',
  config: DelayConfig,
  output: z.object({ resumed_at: z.string() }),
  outputs: MAIN_OUTPUT,
  workflow: delayWorkflow,
});
