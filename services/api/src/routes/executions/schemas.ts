import { z } from '@hono/zod-openapi';

const fields = {
  id: z.string(),
  workflow_id: z.string(),
  workflow_name: z.string(),
  workflow_version: z.number().int(),
  status: z.string(),
  trigger: z.string(),
  event: z.string().nullable(),
  attempt: z.number().int(),
  error: z.object({ message: z.string(), code: z.string() }).nullable(),
  parent_execution_id: z.string().nullable(),
  started_at: z.string(),
  completed_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  temporal_url: z.string().optional().openapi({ description: 'This run in the Temporal Web UI' }),
};

export const ExecutionSummary = z.object(fields).openapi('ExecutionSummary');

export const Step = z
  .object({
    node_id: z.string(),
    node_type: z.string(),
    iteration: z.number().int().nullable(),
    status: z.string(),
    attempt: z.number().int(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    output: z.unknown(),
    resolved_config: z.unknown(),
    error: z
      .object({
        message: z.string(),
        code: z.string(),
        details: z.unknown().optional().openapi({
          description:
            "What the node said when failing, e.g. a failed HTTP request's status, headers and body",
        }),
      })
      .nullable(),
  })
  .openapi('Step');

export const Execution = z
  .object({ ...fields, trigger_payload: z.unknown(), steps: z.array(Step) })
  .openapi('Execution');
