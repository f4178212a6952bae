import { z } from 'zod';
import { Duration, Template } from '../common';
import { defineNodeType } from '../define';
import { waitForEventWorkflow } from './workflow';

export const WaitForEventConfig = z.object({
  event: z.string().regex(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/, 'must look like category.action'),
  /** The event's payload field (a path) must equal this value (may be an expression). */
  match: z.object({ field: z.string().min(1).max(256), equals: Template }).optional(),
  timeout: Duration.default('1d'),
});

export const waitForEvent = defineNodeType({
  type: 'action.wait_for_event',
  name: 'Wait for event',
  category: 'flow',
  description: 'Waits until a matching event is published, or the timeout passes.',
  icon: 'hourglass',
  config: WaitForEventConfig,
  output: z.object({ timed_out: z.boolean(), event: z.unknown() }),
  outputs: ['received', 'timeout'],
  workflow: waitForEventWorkflow,
});
