import { type Database, queryInTenant, schema } from '@weft/db';
import { sql } from 'drizzle-orm';

/** Which local call: the execution it ran for and its key (`<Temporal run id>/<activity id>`). */
export interface LocalCallRef {
  organizationId: string;
  executionId: string;
  callKey: string;
}

/**
 * The answer a local call recorded the first time it ran, or undefined. A local activity's result
 * reaches Temporal's history only with the workflow task that follows it, so a task that was lost
 * runs its local calls again: this is how such a repeat answers without calling out again.
 */
export async function recordedLocalCall(db: Database, ref: LocalCallRef) {
  const t = schema.localCallResults;
  const [row] = await queryInTenant(
    db,
    ref.organizationId,
    sql`select ${t.outcome} from ${t}
         where ${t.executionId} = ${ref.executionId} and ${t.callKey} = ${ref.callKey}
           and ${t.organizationId} = ${ref.organizationId}`,
  );
  return row?.outcome as unknown;
}

/**
 * Records a local call's answer before the activity returns it (one round trip). Only for an
 * execution the organization can see: RLS hides another's, and a foreign key alone would let a row
 * name it. A repeat that raced the first keeps the first answer.
 */
export async function recordLocalCall(db: Database, ref: LocalCallRef, outcome: unknown): Promise<void> {
  const t = schema.localCallResults;
  const e = schema.executions;
  await queryInTenant(
    db,
    ref.organizationId,
    sql`insert into ${t} (organization_id, execution_id, call_key, outcome)
        select ${ref.organizationId}, ${e.id}, ${ref.callKey}, ${JSON.stringify(outcome)}::jsonb
          from ${e} where ${e.id} = ${ref.executionId} and ${e.organizationId} = ${ref.organizationId}
        on conflict do nothing`,
  );
}
