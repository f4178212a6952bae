import { type Database, queryInTenant, schema } from '@weft/db';
import { sql } from 'drizzle-orm';
import { type SecretBox, SecretBoxError } from '../encryption/secret-box';

/** Which local call: the execution it ran for and its key (temporal/activities/run-node.ts). */
export interface LocalCallRef {
  organizationId: string;
  executionId: string;
  callKey: string;
}

/** What a local call answered: its output, or the failure that ended its step. */
export type LocalCallOutcome =
  | { output: unknown }
  | { failed: { message: string; type: string; details?: unknown } };

/**
 * The answer a local call recorded the first time it ran, or undefined. A local activity's result
 * reaches Temporal's history only with the workflow task that follows it, so a task that was lost
 * runs its local calls again: this is how such a repeat answers without calling out again. A row
 * that cannot be opened (sealed with a key that left the ring) is a miss.
 */
export async function recordedLocalCall(
  db: Database,
  box: SecretBox,
  ref: LocalCallRef,
): Promise<LocalCallOutcome | undefined> {
  const t = schema.localCallResults;
  const [row] = await queryInTenant(
    db,
    ref.organizationId,
    sql`select ${t.outcome} from ${t}
         where ${t.executionId} = ${ref.executionId} and ${t.callKey} = ${ref.callKey}
           and ${t.organizationId} = ${ref.organizationId}`,
  );
  if (typeof row?.outcome !== 'string') return undefined;
  let recorded: unknown;
  try {
    recorded = JSON.parse(box.decrypt(row.outcome));
  } catch (error) {
    if (error instanceof SecretBoxError || error instanceof SyntaxError) return undefined;
    throw error;
  }
  if (typeof recorded !== 'object' || recorded === null) return undefined;
  if ('failed' in recorded) return recorded as LocalCallOutcome;
  // `{ output: undefined }` was written as `{}`.
  return { output: (recorded as { output?: unknown }).output };
}

/**
 * Records a local call's answer before the activity returns it (one round trip), sealed with
 * APP_KEY as Temporal's payloads are: it holds what a server answered, which may be anything.
 * Only for an execution the organization can see: RLS hides another's, and a foreign key alone
 * would let a row name it. A repeat that raced the first keeps the first answer.
 */
export async function recordLocalCall(
  db: Database,
  box: SecretBox,
  ref: LocalCallRef,
  outcome: LocalCallOutcome,
): Promise<void> {
  const t = schema.localCallResults;
  const e = schema.executions;
  await queryInTenant(
    db,
    ref.organizationId,
    sql`insert into ${t} (organization_id, execution_id, call_key, outcome)
        select ${ref.organizationId}, ${e.id}, ${ref.callKey}, ${box.encrypt(JSON.stringify(outcome))}
          from ${e} where ${e.id} = ${ref.executionId} and ${e.organizationId} = ${ref.organizationId}
        on conflict do nothing`,
  );
}
