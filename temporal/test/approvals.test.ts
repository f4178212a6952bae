import { createApiKey, decideApproval, type ExecutionEngine } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporalEngine } from '../temporal-engine';

// action.approval end to end on a real Temporal dev server and PostgreSQL: the execution waits
// durably with the step `waiting`, the decision comes through the API, and the branch it names runs.

let h: EngineHarness;
let org: { organizationId: string; key: string };

const transform = (id: string, assignments: Record<string, string>) => ({
  id,
  type: 'action.transform',
  config: { assignments: Object.entries(assignments).map(([key, value]) => ({ key, value })) },
});

async function call(method: string, path: string, body?: unknown, key = org.key) {
  const res = await h.request(method, `/api/v1${path}`, { key, body });
  return { status: res.status, body: (await res.json()) as any };
}

async function approvalWorkflow(config: Record<string, unknown>) {
  const created = await call('POST', '/workflows', {
    name: `refund ${Math.random()}`,
    trigger_type: 'manual',
    status: 'active',
    nodes: [
      { id: 'ask', type: 'action.approval', config },
      transform('refund', { by: '{{nodes.ask.decided_by}}', comment: '{{nodes.ask.comment}}' }),
      transform('decline', { decision: '{{nodes.ask.decision}}' }),
    ],
    edges: [
      { source: 'ask', target: 'refund', source_handle: 'approved' },
      { source: 'ask', target: 'decline', source_handle: 'rejected' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function execute(workflowId: string, input: Record<string, unknown> = {}) {
  const res = await call('POST', `/workflows/${workflowId}/execute`, { input });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.execution_id as string;
}

const step = (execution: any, nodeId: string) => execution.steps.find((s: any) => s.node_id === nodeId);

/** Until the execution waits on its approval; answers the pending approval it asked for. */
async function pendingApprovalOf(executionId: string) {
  const waiting = await h.waitForExecution(org.key, executionId, (e) => e.status === 'waiting');
  expect(step(waiting, 'ask').status).toBe('waiting');
  const list = await call('GET', '/approvals?status=pending&per_page=100');
  expect(list.status).toBe(200);
  const approval = list.body.data.find((a: any) => a.execution_id === executionId);
  expect(approval).toBeDefined();
  return approval;
}

beforeAll(async () => {
  h = await createEngineHarness();
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('action.approval', () => {
  it('waits, lists the interpolated approval as pending, and an approval runs the approved branch once', async () => {
    const workflowId = await approvalWorkflow({
      title: 'Refund {{trigger.amount}} EUR?',
      message: 'Order {{trigger.order}} asks for a refund.',
      timeout: '1d',
    });
    const executionId = await execute(workflowId, { amount: 40, order: 'A-7' });
    const approval = await pendingApprovalOf(executionId);
    expect(approval).toMatchObject({
      workflow_id: workflowId,
      node_id: 'ask',
      title: 'Refund 40 EUR?',
      message: 'Order A-7 asks for a refund.',
      status: 'pending',
    });
    expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBeGreaterThan(23 * 3_600_000);

    const decided = await call('POST', `/approvals/${approval.id}/decision`, {
      decision: 'approve',
      comment: 'fine by me',
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body).toMatchObject({ status: 'approved', decided_via: 'app', comment: 'fine by me' });
    // The first decision wins; a second one (either way) is a conflict.
    const again = await call('POST', `/approvals/${approval.id}/decision`, { decision: 'reject' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');

    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    expect(step(done, 'ask').output).toMatchObject({
      approval_id: approval.id,
      decision: 'approve',
      comment: 'fine by me',
      via: 'app',
      timed_out: false,
    });
    expect(step(done, 'ask').output.decided_by).toMatch(/^API key /);
    expect(step(done, 'refund').output.comment).toBe('fine by me');
    expect(step(done, 'decline').status).toBe('skipped');
    // The decision is on the audit trail.
    const audit = await call('GET', `/audit-logs?entity_type=approval&per_page=100`);
    expect(audit.status).toBe(200);
    const entry = audit.body.data.find((e: any) => e.entity_id === approval.id);
    expect(entry).toMatchObject({ action: 'updated', old_values: { status: 'pending' } });
    expect(entry.new_values).toMatchObject({ status: 'approved', via: 'app', comment: 'fine by me' });
    const listed = await call('GET', '/approvals?status=pending&per_page=100');
    expect(listed.body.data.some((a: any) => a.id === approval.id)).toBe(false);
  });

  it('a rejection runs the rejected branch, even when decided while no worker runs', async () => {
    const workflowId = await approvalWorkflow({ title: 'Ship it?' });
    const executionId = await execute(workflowId);
    const approval = await pendingApprovalOf(executionId);
    expect(approval.expires_at).toBeNull();
    // The decision is a signal: the server keeps it until a worker takes the workflow up again.
    await h.restartWorker();
    expect((await call('POST', `/approvals/${approval.id}/decision`, { decision: 'reject' })).status).toBe(
      200,
    );
    const done = await h.waitForExecution(org.key, executionId);
    expect(done.status).toBe('success');
    expect(step(done, 'decline').output).toEqual({ decision: 'reject' });
    expect(step(done, 'refund').status).toBe('skipped');
  });

  it('at the deadline decides as on_timeout says, or fails the step', async () => {
    const approves = await execute(
      await approvalWorkflow({ title: 'Auto', timeout: '1s', on_timeout: 'approve' }),
    );
    const fails = await execute(
      await approvalWorkflow({ title: 'Strict', timeout: '1s', on_timeout: 'fail' }),
    );
    const approved = await h.waitForExecution(org.key, approves);
    expect(approved.status).toBe('success');
    expect(step(approved, 'ask').output).toMatchObject({
      decision: 'approve',
      via: 'timeout',
      timed_out: true,
    });
    expect(step(approved, 'refund').output.by).toBe('timeout');
    const failed = await h.waitForExecution(org.key, fails);
    // The step failed; with the default on_failure the execution goes on and ends partial.
    expect(failed.status).toBe('partial');
    expect(step(failed, 'ask').status).toBe('failed');
    expect(step(failed, 'ask').error.code).toBe('approval_timeout');
    const timedOut = await call('GET', '/approvals?status=timed_out&per_page=100');
    expect(timedOut.body.data.map((a: any) => a.execution_id)).toEqual(
      expect.arrayContaining([approves, fails]),
    );
  });

  it('a step failed by its deadline and retried asks again', async () => {
    const created = await call('POST', '/workflows', {
      name: 'strict retry',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'ask',
          type: 'action.approval',
          on_failure: 'abort',
          config: { title: 'Strict', timeout: '1s', on_timeout: 'fail' },
        },
      ],
      edges: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const executionId = await execute(created.body.id);
    const failed = await h.waitForExecution(org.key, executionId);
    expect(failed.status).toBe('failed');
    expect(step(failed, 'ask').error.code).toBe('approval_timeout');
    expect((await call('POST', `/executions/${executionId}/retry`, {})).status).toBe(202);
    const again = await pendingApprovalOf(executionId);
    expect(again.status).toBe('pending');
    expect((await call('POST', `/approvals/${again.id}/decision`, { decision: 'approve' })).status).toBe(200);
    const done = await h.waitForExecution(org.key, executionId, (e) => e.status === 'success');
    expect(step(done, 'ask').output).toMatchObject({ approval_id: again.id, decision: 'approve' });
  });

  it('needs approvals.decide, refuses bad input, hides other organizations and ended executions', async () => {
    const executionId = await execute(await approvalWorkflow({ title: 'Guarded' }));
    const approval = await pendingApprovalOf(executionId);
    const viewer = await createApiKey({
      ctx: { db: h.db.app.db, organizationId: org.organizationId, actor: {} },
      input: { name: 'viewer', permissions: ['approvals.view'] },
    });
    expect((await call('GET', '/approvals?status=pending', undefined, viewer.key)).status).toBe(200);
    const forbidden = await call(
      'POST',
      `/approvals/${approval.id}/decision`,
      { decision: 'approve' },
      viewer.key,
    );
    expect(forbidden.status).toBe(403);
    expect((await call('POST', `/approvals/${approval.id}/decision`, { decision: 'maybe' })).status).toBe(
      422,
    );
    expect((await call('GET', '/approvals?status=undecided')).status).toBe(422);

    const other = await h.createOrg();
    expect((await call('GET', `/approvals/${approval.id}`, undefined, other.key)).status).toBe(404);
    const stolen = await call(
      'POST',
      `/approvals/${approval.id}/decision`,
      { decision: 'approve' },
      other.key,
    );
    expect(stolen.status).toBe(404);

    expect((await call('POST', `/executions/${executionId}/cancel`)).status).toBe(200);
    const listed = await call('GET', '/approvals?status=pending&per_page=100');
    expect(listed.body.data.some((a: any) => a.id === approval.id)).toBe(false);
    const late = await call('POST', `/approvals/${approval.id}/decision`, { decision: 'approve' });
    expect(late.status).toBe(409);
  });

  it('a decision whose signal failed is signalled again by the next attempt, which still answers 409', async () => {
    const executionId = await execute(await approvalWorkflow({ title: 'Flaky signal' }));
    const approval = await pendingApprovalOf(executionId);
    const real = createTemporalEngine({ client: h.client, taskQueue: h.taskQueue });
    let failures = 1;
    const flaky: ExecutionEngine = {
      ...real,
      deliverApproval: async (id, outcome) => {
        if (failures-- > 0) throw new Error('Temporal unavailable');
        return real.deliverApproval(id, outcome);
      },
    };
    const ctx = { db: h.db.app.db, organizationId: org.organizationId, actor: {} };
    await expect(
      decideApproval({
        ctx,
        input: { id: approval.id, decision: 'approve' },
        engine: flaky,
        decidedBy: 'ops',
      }),
    ).rejects.toThrow('Temporal unavailable');
    // Committed but never delivered: the execution still waits.
    expect((await call('GET', `/approvals/${approval.id}`)).body.status).toBe('approved');
    expect((await call('GET', `/executions/${executionId}`)).body.status).toBe('waiting');

    const retry = await call('POST', `/approvals/${approval.id}/decision`, { decision: 'reject' });
    expect(retry.status).toBe(409);
    const done = await h.waitForExecution(org.key, executionId, (e) => e.status === 'success');
    // The recorded decision (approve, by ops) is what ran, not the retry's.
    expect(step(done, 'ask').output).toMatchObject({ decision: 'approve', decided_by: 'ops' });
    expect(step(done, 'refund')?.status).toBe('completed');
  });

  it('fails the step with too_many_recipients when notify_email expands past 20 addresses', async () => {
    const workflowId = await approvalWorkflow({ title: 'Many', notify_email: '{{trigger.to}}' });
    const to = Array.from({ length: 25 }, (_, i) => `u${i}@x.example`).join(',');
    const executionId = await execute(workflowId, { to });
    // The step fails; what the execution does next is the node's on_failure (default: continue).
    const ended = (e: any) => !['pending', 'running', 'waiting'].includes(e.status);
    const failed = await h.waitForExecution(org.key, executionId, ended);
    expect(step(failed, 'ask')).toMatchObject({ status: 'failed', error: { code: 'too_many_recipients' } });
    const list = await call('GET', '/approvals?per_page=100');
    expect(list.body.data.some((a: any) => a.execution_id === executionId)).toBe(false);
  });
});
