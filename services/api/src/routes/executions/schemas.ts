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
  mode: z.enum(['production', 'test']).openapi({
    description: '`test`: a test run or replay from the workbench (pins used, never announced to webhooks)',
  }),
  replay_of: z.string().nullable().openapi({ description: 'The execution this one replays' }),
  retry_of: z
    .string()
    .nullable()
    .openapi({ description: 'The partial execution this one retries from its failed steps' }),
  test_options: z
    .object({
      start_at: z.string().optional(),
      stop_after: z.string().optional(),
      source_execution_id: z.string().optional(),
    })
    .nullable()
    .openapi({ description: "A test run's bounds and the execution earlier steps took their outputs from" }),
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
    source: z
      .enum(['pin', 'recorded', 'disabled', 'stopped'])
      .nullable()
      .openapi({
        description:
          "Why the node did not run: `pin` (its pinned output), `recorded` (another execution's step), " +
          "`disabled` (input passed through), `stopped` (after the test run's stop_after); null: it ran",
      }),
    replayed: z
      .boolean()
      .openapi({ description: 'The output was taken from another execution (source `recorded`)' }),
  })
  .openapi('Step');

export const Execution = z
  .object({ ...fields, trigger_payload: z.unknown(), steps: z.array(Step) })
  .openapi('Execution');
