import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType } from '../define';
import { conditionWorkflow } from './workflow';

export const ConditionOperator = z.enum([
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_empty',
  'is_not_empty',
  'exists',
  'not_exists',
]);

export const ConditionConfig = z.object({
  conditions: z
    .array(z.object({ left: Template, operator: ConditionOperator, right: Template.optional() }))
    .min(1)
    .max(50),
  combine: z.enum(['and', 'or']).default('and'),
});

export const condition = defineNodeType({
  type: 'action.condition',
  name: 'Condition',
  category: 'logic',
  description: 'Routes to the true or false output depending on the conditions.',
  icon: 'branch',
  config: ConditionConfig,
  output: z.object({ result: z.boolean() }),
  outputs: ['true', 'false'],
  workflow: conditionWorkflow,
});
