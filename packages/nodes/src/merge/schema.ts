import { z } from 'zod';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { mergeWorkflow } from './workflow';

export const MergeConfig = z.object({
  /** `wait_all`: waits for every live input; its output holds each input's output by node id. */
  mode: z.enum(['wait_all']).default('wait_all'),
});

export const merge = defineNodeType({
  type: 'action.merge',
  name: 'Merge',
  category: 'flow',
  description: 'Waits for all live incoming branches and combines their outputs.',
  icon: 'merge',
  config: MergeConfig,
  output: z.record(z.string(), z.unknown()),
  outputs: MAIN_OUTPUT,
  workflow: mergeWorkflow,
});
