import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { transformWorkflow } from './workflow';

export const TransformConfig = z.object({
  assignments: z
    .array(z.object({ key: z.string().min(1).max(128), value: Template }))
    .min(1)
    .max(200),
});

export const transform = defineNodeType({
  type: 'action.transform',
  name: 'Transform',
  category: 'data',
  description: 'Builds an object from assignments; each value may use expressions and pipes.',
  icon: 'wand',
  config: TransformConfig,
  output: z.record(z.string(), z.unknown()),
  outputs: MAIN_OUTPUT,
  workflow: transformWorkflow,
});
