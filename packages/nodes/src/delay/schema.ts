import { z } from 'zod';
import { Duration, Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';

export const DelayConfig = z.union([
  z.object({ duration: Duration }).strict(),
  /** ISO 8601 instant; may be an expression. */
  z.object({ until: Template.min(1) }).strict(),
]);

export const delay = defineNodeType({
  type: 'action.delay',
  name: 'Delay',
  category: 'flow',
  description: 'Pauses the execution for a duration or until a point in time (a durable Temporal timer).',
  config: DelayConfig,
  output: z.object({ resumed_at: z.string() }),
  outputs: MAIN_OUTPUT,
  runsIn: 'workflow',
});
