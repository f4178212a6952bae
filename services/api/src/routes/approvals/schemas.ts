import { z } from '@hono/zod-openapi';
import { APPROVAL_STATUSES } from '@weft/domain';

export const Approval = z
  .object({
    id: z.string(),
    execution_id: z.string(),
    workflow_id: z.string(),
    workflow_name: z.string().nullable(),
    node_id: z.string(),
    title: z.string().openapi({ description: 'Interpolated when the step asked.' }),
    message: z.string().openapi({ description: 'Interpolated when the step asked.' }),
    status: z.enum(APPROVAL_STATUSES),
    decided_by: z.string().nullable(),
    decided_via: z.enum(['app', 'email', 'chat', 'timeout']).nullable(),
    comment: z.string().nullable(),
    decided_at: z.string().nullable(),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: 'The deadline (the step’s timeout); null waits for ever.' }),
    created_at: z.string(),
  })
  .openapi('Approval');
