import type { Database } from '@weft/db';
import type { createOutboundHttpClient, ExecutionEngine, SecretBox } from '@weft/services';

/** What the worker gives its activities (samples-typescript style: dependencies in, activities out). */
export interface ActivityDeps {
  db: Database;
  engine: ExecutionEngine & { startDirect(organizationId: string, executionIds: string[]): Promise<void> };
  http: ReturnType<typeof createOutboundHttpClient>;
  /** Node outputs whose JSON is larger are stored in PostgreSQL and passed by reference. */
  outputInlineLimitBytes?: number;
  /** APP_KEY-derived encryption of stored secrets (webhook signing secrets). */
  secrets: SecretBox;
}
