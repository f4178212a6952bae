import { z } from 'zod';
import { Template } from '../common';
import { defineNodeType } from '../define';
import { switchWorkflow } from './workflow';

export const SwitchConfig = z.object({
  value: Template,
  cases: z
    .array(
      z.object({
        key: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,64}$/)
          .refine((k) => k !== 'default', 'default is reserved'),
        equals: Template,
      }),
    )
    .min(1)
    .max(50)
    .superRefine((cases, ctx) => {
      const seen = new Set<string>();
      cases.forEach((c, i) => {
        if (seen.has(c.key))
          ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `duplicate case key "${c.key}"` });
        seen.add(c.key);
      });
    }),
});

export const switchNode = defineNodeType({
  type: 'action.switch',
  name: 'Switch',
  category: 'logic',
  description: 'Routes to the first case whose value matches, or to default.',
  icon: 'split',
  config: SwitchConfig,
  output: z.object({ matched: z.string() }),
  outputs: 'cases',
  workflow: switchWorkflow,
});
