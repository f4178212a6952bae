import { z } from '@hono/zod-openapi';

export const StartedExecution = z.object({ execution_id: z.string() }).openapi('StartedExecution');
