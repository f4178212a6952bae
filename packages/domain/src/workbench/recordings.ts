import { createHash } from 'node:crypto';
import { type Database, schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import { resolveStoredOutputs, storeIfLarge } from '../executions/stored-outputs';
import type { StepError } from '../executions/types';

/** A step of another execution, as a test run or replay reuses it. */
export type RecordedStep = { status: 'completed'; output: unknown } | { status: 'failed'; error: StepError };

/**
 * The recorded outcome of `nodeId` (at `iteration`) in `sourceExecutionId`, for the execution
 * `executionId` to reuse: completed or failed steps of the same node type only (anything else:
 * null). Large outputs are read from the source's stored outputs and stored again for the new
 * execution, so the reference it carries is its own.
 */
export async function findRecordedStep(
  db: Database,
  args: {
    organizationId: string;
    executionId: string;
    sourceExecutionId: string;
    nodeId: string;
    nodeType: string;
    iteration: number;
  },
  inlineLimitBytes: number,
): Promise<RecordedStep | null> {
  const s = schema.executionSteps;
  const [step] = await withTenant(db, args.organizationId, (tx) =>
    tx
      .select({ status: s.status, nodeType: s.nodeType, output: s.output, error: s.error })
      .from(s)
      .where(
        and(
          eq(s.executionId, args.sourceExecutionId),
          eq(s.nodeId, args.nodeId),
          eq(s.iteration, args.iteration),
        ),
      ),
  );
  if (!step || step.nodeType !== args.nodeType) return null;
  if (step.status === 'failed') {
    return { status: 'failed', error: step.error ?? { message: 'failed', code: 'error' } };
  }
  if (step.status !== 'completed') return null;
  const source = { organizationId: args.organizationId, executionId: args.sourceExecutionId };
  const output = await resolveStoredOutputs(db, source, step.output);
  return {
    status: 'completed',
    output: await storeIfLarge(
      db,
      { organizationId: args.organizationId, executionId: args.executionId },
      output,
      inlineLimitBytes,
      // It runs in a retried local activity: a retry after a timeout reuses the row it stored.
      recordedOutputId(args),
    ),
  };
}

/** The steps that failed in an execution, by node and iteration: what its retry runs again. */
export async function findFailedSteps(
  db: Database,
  args: { organizationId: string; executionId: string },
): Promise<{ nodeId: string; iteration: number }[]> {
  const s = schema.executionSteps;
  return withTenant(db, args.organizationId, (tx) =>
    tx
      .select({ nodeId: s.nodeId, iteration: s.iteration })
      .from(s)
      .where(and(eq(s.executionId, args.executionId), eq(s.status, 'failed'))),
  );
}

/** The stored output's id for one recorded step of one execution: a UUID from a hash of the step. */
export function recordedOutputId(step: { executionId: string; nodeId: string; iteration: number }): string {
  const hex = createHash('sha256')
    .update(`recorded:${step.executionId}:${step.nodeId}:${step.iteration}`)
    .digest('hex');
  // Version 8 (custom) with the RFC 9562 variant bits, so it is a well-formed UUID.
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
