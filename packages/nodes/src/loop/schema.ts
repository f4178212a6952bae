import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType } from '../define';
import { loopWorkflow } from './workflow';

export const LoopConfig = z.object({
  /** An expression that yields an array, e.g. `{{trigger.items}}`. */
  items: Template.min(1),
  mode: z.enum(['sequential', 'parallel']).default('sequential'),
  concurrency: z.number().int().min(1).max(100).default(10),
  max_items: z.number().int().min(1).max(100_000).default(10_000),
});

export const loop = defineNodeType({
  type: 'action.loop',
  name: 'Loop',
  category: 'flow',
  description: 'Runs the nodes on its each output once per item, then continues on done.',
  icon: 'repeat',
  config: LoopConfig,
  output: z.object({ count: z.number().int(), results: z.array(z.unknown()) }),
  outputs: ['each', 'done'],
  workflow: loopWorkflow,
});
