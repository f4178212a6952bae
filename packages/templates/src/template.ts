import { TriggerType } from '@weft/graph';
import { z } from 'zod';

export const TEMPLATE_CATEGORIES = [
  'leads',
  'orders',
  'carts',
  'payments',
  'support',
  'chat',
  'hr',
  'operations',
  'reports',
  'integrations',
] as const;
export const TemplateCategory = z.enum(TEMPLATE_CATEGORIES);
export type TemplateCategory = z.infer<typeof TemplateCategory>;

/** The organization modules a template's nodes send through; the gallery says which are configured. */
export const TEMPLATE_MODULES = ['chat', 'email', 'ai'] as const;
export const TemplateModule = z.enum(TEMPLATE_MODULES);
export type TemplateModule = z.infer<typeof TemplateModule>;

/**
 * An `action.workflow.execute` node in a template names the template it calls as
 * `template:<id>`; cloning clones that template too and puts the new workflow's id there.
 */
export const TEMPLATE_REFERENCE = /^template:([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/**
 * One template file (`data/<id>.json`). The workflow part is the body of POST /workflows; the
 * services check it with the same validator as any saved workflow, so a template that would be
 * refused at save fails the build instead.
 */
export const TemplateFile = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'kebab-case, like the file name'),
  name: z.string().min(1).max(120),
  description: z.string().min(20).max(600),
  category: TemplateCategory,
  tags: z.array(z.string().regex(/^[a-z0-9-]{1,32}$/)).max(8),
  modules: z.array(TemplateModule),
  workflow: z.looseObject({
    name: z.string(),
    trigger_type: TriggerType,
    trigger_config: z.record(z.string(), z.unknown()),
    nodes: z.array(z.looseObject({ id: z.string(), type: z.string() })).min(1),
    edges: z.array(z.looseObject({ source: z.string(), target: z.string() })),
  }),
  /** What a test run starts with: the trigger's payload (an event's, a hook body, a chat message). */
  sample: z
    .strictObject({
      trigger_payload: z.record(z.string(), z.unknown()).optional(),
      /** Events a wait node in this template waits for, published after the run starts. */
      later_events: z
        .array(z.strictObject({ event: z.string(), payload: z.record(z.string(), z.unknown()) }))
        .optional(),
      /** Decisions on the approvals the run asks for (action.approval), in order, made once each waits. */
      approvals: z
        .array(
          z.strictObject({
            decision: z.enum(['approve', 'reject']),
            comment: z.string().max(2000).optional(),
          }),
        )
        .optional(),
      /**
       * What the HTTP services a template calls answer in a test run, by `METHOD /path` (the
       * test serves every URL's path from one local server); unlisted calls get `{"ok": true}`.
       */
      http_responses: z
        .record(z.string().regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/), z.unknown())
        .optional(),
      /** The AI provider's answer text in a test run (JSON text when the node asks for `json: true`). */
      ai_reply: z.string().optional(),
      /**
       * The AI provider's answers in a test run, in order, before `ai_reply` answers the rest: an
       * agent's tool calls (several in one answer = parallel calls), then its final text.
       */
      ai_script: z
        .array(
          z.strictObject({
            text: z.string().optional(),
            tool_calls: z
              .array(z.strictObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }))
              .optional(),
          }),
        )
        .optional(),
      /** The status a run ends in with the sample (a template may promise `partial`). */
      expected_status: z.enum(['success', 'partial', 'failed']).default('success'),
    })
    .default({ expected_status: 'success' }),
});
export type TemplateFile = z.infer<typeof TemplateFile>;
