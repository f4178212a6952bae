import { z } from '@hono/zod-openapi';
import { TRIGGER_TYPES } from '@weft/graph';
import { TEMPLATE_CATEGORIES, TEMPLATE_MODULES } from '@weft/templates';

export const TemplateCategory = z.enum(TEMPLATE_CATEGORIES).openapi('TemplateCategory');

export const TemplateSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: TemplateCategory,
    tags: z.array(z.string()),
    modules: z
      .array(z.enum(TEMPLATE_MODULES))
      .openapi({ description: 'Organization modules its nodes send through (chat, email, ai)' }),
    trigger_type: z.enum(TRIGGER_TYPES),
    trigger_config: z.record(z.string(), z.unknown()),
    node_types: z.array(z.string()),
    node_count: z.number().int(),
  })
  .openapi('TemplateSummary');

export const Template = TemplateSummary.extend({
  workflow: z
    .object({
      name: z.string(),
      description: z.string().nullish(),
      trigger_type: z.enum(TRIGGER_TYPES),
      trigger_config: z.record(z.string(), z.unknown()),
      nodes: z.array(z.record(z.string(), z.unknown())),
      edges: z.array(z.record(z.string(), z.unknown())),
    })
    .openapi({ description: 'The workflow a clone creates (a POST /workflows body)' }),
  sample: z
    .object({ trigger_payload: z.record(z.string(), z.unknown()).optional() })
    .passthrough()
    .openapi({ description: 'Sample trigger data for a first test run' }),
}).openapi('Template');

export const TemplateIdParam = z.object({
  id: z
    .string()
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'lead-welcome-and-crm-sync' }),
});
