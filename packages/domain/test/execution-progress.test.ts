import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveExecutionProgress } from '../src/executions/progress';
import type { ExecutionProgress, StepProgress } from '../src/executions/types';
import { createOrganization } from '../src/organizations/create';

/** The step rows' upsert (one jsonb parameter) on a real PostgreSQL, as the worker's role. */
let t: TestDatabase;
let org: string;

beforeAll(async () => {
  t = await createTestDatabase();
  org = (await createOrganization(t.app.db, { name: 'Acme' })).id;
}, 60_000);
afterAll(() => t?.drop());

async function newExecution(): Promise<string> {
  const [row] = await t.admin<{ id: string }[]>`
    insert into executions (id, organization_id, workflow_id, workflow_name, workflow_version, graph,
                            status, trigger, trigger_payload, started_at)
    values (gen_random_uuid(), ${org}, gen_random_uuid(), 'wf', 1, '{}'::jsonb, 'running', 'api',
            '{}'::jsonb, '2026-11-27T10:00:00.000Z')
    returning id`;
  return row?.id as string;
}

const report = (executionId: string, steps: StepProgress[], extra: Partial<ExecutionProgress> = {}) =>
  ({ executionId, organizationId: org, status: 'running', attempt: 1, steps, ...extra }) as ExecutionProgress;

async function stepsOf(executionId: string) {
  return t.admin<Record<string, unknown>[]>`
    select node_id, node_type, iteration, position, status, attempt, output, resolved_config, error,
           started_at, completed_at, duration_ms, source
    from execution_steps where execution_id = ${executionId} order by position, iteration`;
}

describe('saveExecutionProgress', () => {
  it('writes every field of every step, keeping JSON values, nulls and timestamps as given', async () => {
    const id = await newExecution();
    const output = { text: 'ünïcode "quoted" \\ back', list: [1, 2.5, null, true], nested: { a: {} } };
    await saveExecutionProgress(
      t.app.db,
      report(id, [
        {
          nodeId: 'fetch',
          nodeType: 'action.http_request',
          iteration: -1,
          position: 0,
          status: 'completed',
          attempt: 2,
          output,
          resolvedConfig: { url: 'https://example.com/a?b=1', headers: { Authorization: '•••' } },
          startedAt: '2026-11-27T10:00:00.125Z',
          completedAt: '2026-11-27T10:00:01.375Z',
          durationMs: 1250,
        },
        // A string and a number are JSON outputs too; an absent output is SQL null, not JSON null.
        {
          nodeId: 'each',
          nodeType: 'action.transform',
          iteration: 3,
          position: 1,
          status: 'completed',
          attempt: 1,
          output: 'plain',
        },
        {
          nodeId: 'count',
          nodeType: 'action.transform',
          iteration: -1,
          position: 2,
          status: 'completed',
          attempt: 1,
          output: 42,
          source: 'pin',
        },
        {
          nodeId: 'send',
          nodeType: 'action.send_chat',
          iteration: -1,
          position: 3,
          status: 'failed',
          attempt: 1,
          error: { message: 'provider said no', code: 'provider_error' },
        },
      ]),
    );
    const rows = await stepsOf(id);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({
      node_id: 'fetch',
      node_type: 'action.http_request',
      iteration: -1,
      status: 'completed',
      attempt: 2,
      output,
      resolved_config: { url: 'https://example.com/a?b=1', headers: { Authorization: '•••' } },
      error: null,
      duration_ms: '1250',
      source: null,
    });
    expect((rows[0]?.started_at as Date | undefined)?.toISOString()).toBe('2026-11-27T10:00:00.125Z');
    expect((rows[0]?.completed_at as Date | undefined)?.toISOString()).toBe('2026-11-27T10:00:01.375Z');
    expect(rows[1]).toMatchObject({ node_id: 'each', iteration: 3, output: 'plain', started_at: null });
    expect(rows[2]).toMatchObject({ node_id: 'count', output: 42, source: 'pin' });
    expect(rows[3]).toMatchObject({
      status: 'failed',
      output: null,
      error: { message: 'provider said no', code: 'provider_error' },
    });
    const [nulls] = await t.admin<{ n: number }[]>`
      select count(*)::int as n from execution_steps where execution_id = ${id} and output is null`;
    expect(nulls?.n).toBe(1);
  });

  it('a later or replayed report updates the same rows by node and iteration, never adds one', async () => {
    const id = await newExecution();
    const running: StepProgress = {
      nodeId: 'wait',
      nodeType: 'action.delay',
      iteration: -1,
      position: 0,
      status: 'running',
      attempt: 1,
    };
    const done: StepProgress = {
      ...running,
      status: 'completed',
      attempt: 2,
      output: { ok: true },
      durationMs: 5,
    };
    await saveExecutionProgress(t.app.db, report(id, [running]));
    await saveExecutionProgress(t.app.db, report(id, [done]));
    await saveExecutionProgress(t.app.db, report(id, [done]));
    const rows = await stepsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'completed',
      attempt: 2,
      output: { ok: true },
      duration_ms: '5',
    });
  });

  it("writes nothing into another organization's execution", async () => {
    const id = await newExecution();
    const other = (await createOrganization(t.app.db, { name: 'Globex' })).id;
    const saved = await saveExecutionProgress(t.app.db, {
      ...report(id, [
        {
          nodeId: 'x',
          nodeType: 'action.transform',
          iteration: -1,
          position: 0,
          status: 'completed',
          attempt: 1,
        },
      ]),
      organizationId: other,
      status: 'success',
    });
    // Row-level security hides the foreign execution: no step row, no status change, nothing saved.
    expect(saved).toBeNull();
    expect(await stepsOf(id)).toHaveLength(0);
    const [row] = await t.admin<{ status: string }[]>`select status from executions where id = ${id}`;
    expect(row?.status).toBe('running');
  });
});
