import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/encryption/secret-box';
import { recordedLocalCall, recordLocalCall } from '../src/executions/local-call-results';
import { pruneExpiredRows } from '../src/executions/table-retention';
import { createOrganization } from '../src/organizations/create';

const box = createSecretBox(randomBytes(32));

/** Local calls' recorded answers on a real PostgreSQL, as the worker's role (RLS applies). */
let t: TestDatabase;
let acme: string;
let globex: string;

beforeAll(async () => {
  t = await createTestDatabase();
  acme = (await createOrganization(t.app.db, { name: 'Acme' })).id;
  globex = (await createOrganization(t.app.db, { name: 'Globex' })).id;
}, 60_000);
afterAll(() => t?.drop());

async function newExecution(org: string): Promise<string> {
  const [row] = await t.admin<{ id: string }[]>`
    insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph,
                            status, trigger, trigger_payload, started_at)
    values (gen_random_uuid(), ${org}, gen_random_uuid(), 'wf', 1, '{}'::jsonb, 'running', 'api',
            '{}'::jsonb, now())
    returning id`;
  return row?.id as string;
}

describe('a local call’s recorded answer', () => {
  it('is answered to a repeat of the same call, and only to it', async () => {
    const executionId = await newExecution(acme);
    const call = { organizationId: acme, executionId, callKey: 'run-1/3' };
    expect(await recordedLocalCall(t.app.db, box, call)).toBeUndefined();
    const outcome = { output: { status: 200, body: { ünï: [1, null, 'x'] } } };
    await recordLocalCall(t.app.db, box, call, outcome);
    expect(await recordedLocalCall(t.app.db, box, call)).toEqual(outcome);
    // Another activity of the run, or the same activity id in another run, is another call.
    expect(await recordedLocalCall(t.app.db, box, { ...call, callKey: 'run-1/4' })).toBeUndefined();
    expect(await recordedLocalCall(t.app.db, box, { ...call, callKey: 'run-2/3' })).toBeUndefined();
  });

  it('is sealed at rest: the server’s answer is not in the row, and a row no key opens is a miss', async () => {
    const executionId = await newExecution(acme);
    const call = { organizationId: acme, executionId, callKey: 'run-1/sealed' };
    await recordLocalCall(t.app.db, box, call, { output: { body: 'answer-canary-7431' } });
    const [row] = await t.admin<{ outcome: string }[]>`
      select outcome from local_call_results where execution_id = ${executionId}`;
    expect(row?.outcome).not.toContain('answer-canary-7431');
    expect(await recordedLocalCall(t.app.db, createSecretBox(randomBytes(32)), call)).toBeUndefined();
    // An output of undefined (written as `{}`) comes back as such, not as a failure.
    const empty = { organizationId: acme, executionId, callKey: 'run-1/empty' };
    await recordLocalCall(t.app.db, box, empty, { output: undefined });
    expect(await recordedLocalCall(t.app.db, box, empty)).toEqual({ output: undefined });
  });

  it('keeps the first answer when a racing repeat records another', async () => {
    const executionId = await newExecution(acme);
    const call = { organizationId: acme, executionId, callKey: 'run-1/1' };
    await recordLocalCall(t.app.db, box, call, { output: 'first' });
    await recordLocalCall(t.app.db, box, call, { failed: { message: 'second', type: 'http_status' } });
    expect(await recordedLocalCall(t.app.db, box, call)).toEqual({ output: 'first' });
  });

  it("is never read by another organization, nor written under another organization's execution", async () => {
    const executionId = await newExecution(acme);
    await recordLocalCall(
      t.app.db,
      box,
      { organizationId: acme, executionId, callKey: 'k/1' },
      { output: 1 },
    );
    expect(
      await recordedLocalCall(t.app.db, box, { organizationId: globex, executionId, callKey: 'k/1' }),
    ).toBe(undefined);
    // Globex naming Acme's execution writes nothing (its row would pass the foreign key).
    await recordLocalCall(
      t.app.db,
      box,
      { organizationId: globex, executionId, callKey: 'k/2' },
      { output: 2 },
    );
    const rows = await t.admin<{ organization_id: string; call_key: string }[]>`
      select organization_id, call_key from local_call_results where execution_id = ${executionId}`;
    expect(rows).toEqual([{ organization_id: acme, call_key: 'k/1' }]);
  });

  it('is pruned 10 minutes after its execution finished, after a day in any case, and with its execution', async () => {
    await t.admin`delete from local_call_results`;
    const [old, recent, deleted, finished, justFinished] = [
      await newExecution(acme),
      await newExecution(globex),
      await newExecution(acme),
      await newExecution(globex),
      await newExecution(acme),
    ];
    for (const [org, id] of [
      [acme, old],
      [globex, recent],
      [acme, deleted],
      [globex, finished],
      [acme, justFinished],
    ] as const)
      await recordLocalCall(
        t.app.db,
        box,
        { organizationId: org, executionId: id, callKey: 'r/1' },
        { output: id },
      );
    await t.admin`update local_call_results set created_at = now() - interval '25 hours' where execution_id = ${old}`;
    await t.admin`delete from executions where id = ${deleted}`;
    await t.admin`update executions set status = 'success', completed_at = now() - interval '11 minutes' where id = ${finished}`;
    await t.admin`update executions set status = 'success', completed_at = now() - interval '1 minute' where id = ${justFinished}`;
    const report = await pruneExpiredRows(t.app.db, { executionRetentionDays: 30, auditLogRetentionDays: 0 });
    expect(report.local_call_results).toBe(2);
    expect(
      (await t.admin<{ execution_id: string }[]>`select execution_id from local_call_results`)
        .map((r) => r.execution_id)
        .sort(),
    ).toEqual([recent, justFinished].sort());
  });
});
