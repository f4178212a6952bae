import { z } from '@hono/zod-openapi';

const summaryFields = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  trigger_type: z.string(),
  trigger_config: z.record(z.string(), z.unknown()),
  status: z.string(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
};

export const WorkflowSummary = z.object(summaryFields).openapi('WorkflowSummary');
export const Workflow = z
  .object({
    ...summaryFields,
    nodes: z.array(z.unknown()),
    edges: z.array(z.unknown()),
    notes: z.array(z.unknown()).openapi({
      description:
        "Sticky notes on the editor's canvas ({id, text, position, width?, height?, color}); documentation, never run. A PUT without notes keeps them.",
    }),
    webhook_url: z
      .string()
      .optional()
      .openapi({ description: 'Webhook workflows only: POST JSON here to run it (no API key needed)' }),
    form_url: z
      .string()
      .optional()
      .openapi({ description: 'Form workflows only: the public page of the form; a submission runs it' }),
  })
  .openapi('Workflow');
