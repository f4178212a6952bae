import { callToolWorkflow, listToolWorkflows, type ServiceContext } from '@weft/domain';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporalEngine } from '../temporal-engine';

// Tool workflows (DESIGN §14): saved with a name and an input schema, called by name with
// arguments validated first, their result the output of their last leaf node.
let h: EngineHarness;
let org: { organizationId: string; key: string };
let other: { organizationId: string; key: string };
let ctx: ServiceContext;
let engine: ReturnType<typeof createTemporalEngine>;

beforeAll(async () => {
  h = await createEngineHarness();
  org = await h.createOrg('Tools');
  other = await h.createOrg('Other');
  ctx = { db: h.db.app.db, organizationId: org.organizationId, actor: {} };
  engine = createTemporalEngine({ client: h.client, taskQueue: h.taskQueue });
}, 120_000);

afterAll(() => h?.close());

const GREET_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, times: { type: 'integer', minimum: 1 } },
  required: ['name'],
  additionalProperties: false,
};

const toolWorkflow = (name: string, status: string, overrides: Record<string, unknown> = {}) => ({
  name: `Tool ${name}`,
  trigger_type: 'tool',
  trigger_config: { name, description: `Greets someone (${name})`, input_schema: GREET_SCHEMA },
  status,
  nodes: [
    {
      id: 'greeting',
      type: 'action.transform',
      name: 'Greet',
      config: { assignments: [{ key: 'text', value: 'Hello {{ trigger.name }}' }] },
    },
  ],
  edges: [],
  ...overrides,
});

async function save(key: string, body: unknown, expected: number, id?: string): Promise<any> {
  const res = await h.request(id ? 'PUT' : 'POST', id ? `/api/v1/workflows/${id}` : '/api/v1/workflows', {
    key,
    body,
  });
  const answer = await res.json();
  expect(res.status, JSON.stringify(answer)).toBe(expected);
  return answer;
}

describe('saving a tool workflow', () => {
  it('refuses a bad name, a schema that is not an object schema, and one that is no JSON Schema', async () => {
    const badName = await save(org.key, toolWorkflow('Greet-Me', 'draft'), 422);
    expect(Object.keys(badName.error.fields)).toEqual(['trigger_config.name']);
    const notObject = await save(
      org.key,
      toolWorkflow('greet', 'draft', {
        trigger_config: { name: 'greet', description: '', input_schema: { type: 'string' } },
      }),
      422,
    );
    expect(notObject.error.fields['trigger_config.input_schema'][0]).toMatch(/"type": "object"/);
    const notSchema = await save(
      org.key,
      toolWorkflow('greet', 'draft', {
        trigger_config: {
          name: 'greet',
          description: '',
          input_schema: { type: 'object', properties: { a: { type: 'text' } } },
        },
      }),
      422,
    );
    expect(notSchema.error.fields['trigger_config.input_schema'][0]).toMatch(/not a valid JSON Schema/);
    const draft07 = await save(
      org.key,
      toolWorkflow('greet', 'draft', {
        trigger_config: {
          name: 'greet',
          input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
        },
      }),
      422,
    );
    expect(draft07.error.fields['trigger_config.input_schema'][0]).toMatch(/2020-12/);
  });

  it('keeps the name unique among active tool workflows: a second activation is a 409 naming the holder', async () => {
    const first = await save(org.key, toolWorkflow('lookup', 'active'), 201);
    expect(first.trigger_config).toMatchObject({ name: 'lookup', input_schema: GREET_SCHEMA });
    const draft = await save(org.key, toolWorkflow('lookup', 'draft'), 201);
    const clash = await save(org.key, toolWorkflow('lookup', 'active'), 409, draft.id);
    expect(clash.error.code).toBe('conflict');
    expect(clash.error.message).toContain(first.id);
    expect(clash.error.fields['trigger_config.name']).toBeDefined();
    // Re-saving the holder itself is no clash, and another organization has names of its own.
    await save(org.key, toolWorkflow('lookup', 'active'), 200, first.id);
    await save(other.key, toolWorkflow('lookup', 'active'), 201);
    // Deactivated, the name is free for the other one.
    await save(org.key, toolWorkflow('lookup', 'inactive'), 200, first.id);
    await save(org.key, toolWorkflow('lookup', 'active'), 200, draft.id);
  });

  it('lets only one of several concurrent activations of a name through', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        h
          .request('POST', '/api/v1/workflows', { key: org.key, body: toolWorkflow('racing', 'active') })
          .then((r) => r.status),
      ),
    );
    expect(results.sort()).toEqual([201, 409, 409, 409]);
  });
});

describe('calling a tool workflow', () => {
  beforeAll(async () => {
    await save(org.key, toolWorkflow('greet', 'active'), 201);
    await save(other.key, toolWorkflow('secret_tool', 'active'), 201);
  });

  it('lists the active tool workflows of the caller only', async () => {
    const names = (await listToolWorkflows({ ctx, input: {} })).map((t) => t.name);
    expect(names).toContain('greet');
    expect(names).not.toContain('secret_tool');
  });

  it('runs it with the arguments as trigger and answers the last node output', async () => {
    const outcome = await callToolWorkflow({
      ctx,
      input: { tool: { name: 'greet' }, arguments: { name: 'Ada' }, timeoutMs: 30_000 },
      engine,
    });
    expect(outcome).toMatchObject({ status: 'success', finished: true, result: { text: 'Hello Ada' } });
    const execution = await h.waitForExecution(org.key, outcome.execution_id);
    expect(execution).toMatchObject({ trigger: 'tool', trigger_payload: { name: 'Ada' } });
  });

  it('refuses arguments the input schema does not accept, and runs nothing', async () => {
    const before = await h
      .request('GET', '/api/v1/executions?limit=100', { key: org.key })
      .then((r) => r.json() as Promise<any>);
    await expect(
      callToolWorkflow({
        ctx,
        input: { tool: { name: 'greet' }, arguments: { name: '', extra: 1 }, timeoutMs: 30_000 },
        engine,
      }),
    ).rejects.toMatchObject({ code: 'validation_error', fields: { arguments: expect.any(Array) } });
    const after = await h
      .request('GET', '/api/v1/executions?limit=100', { key: org.key })
      .then((r) => r.json() as Promise<any>);
    expect(after.data.length).toBe(before.data.length);
  });

  it('POST /workflows/{id}/execute checks the input against the input schema too (422 on input)', async () => {
    const saved = await save(org.key, toolWorkflow('greet_by_api', 'draft'), 201);
    const execute = (input: unknown) =>
      h.request('POST', `/api/v1/workflows/${saved.id}/execute`, { key: org.key, body: { input } });
    const refused = await execute({ name: '', extra: 1 });
    const body = (await refused.json()) as any;
    expect(refused.status, JSON.stringify(body)).toBe(422);
    expect(body.error).toMatchObject({ code: 'validation_error', fields: { input: expect.any(Array) } });
    expect(body.error.fields.input.join(' ')).toMatch(/extra|additional/);
    const accepted = await execute({ name: 'Ada' });
    expect(accepted.status).toBe(202);
    const { execution_id } = (await accepted.json()) as any;
    const done = await h.waitForExecution(org.key, execution_id, (e) => e.status === 'success');
    expect(done.trigger_payload).toEqual({ name: 'Ada' });
  });

  it("does not find another organization's tool, nor an unknown one", async () => {
    for (const name of ['secret_tool', 'nope']) {
      await expect(
        callToolWorkflow({ ctx, input: { tool: { name }, arguments: {}, timeoutMs: 1000 }, engine }),
      ).rejects.toMatchObject({ code: 'not_found', message: 'Tool not found' });
    }
  });

  it('action.workflow.execute validates a tool workflow input; a valid call is a tool run with its parent', async () => {
    const tool = await save(org.key, toolWorkflow('greet_child', 'draft'), 201);
    const caller = (input: unknown) => ({
      name: 'Caller',
      trigger_type: 'manual',
      trigger_config: {},
      status: 'draft',
      nodes: [
        {
          id: 'call',
          type: 'action.workflow.execute',
          name: 'Call',
          config: { workflow_id: tool.id, input },
        },
      ],
      edges: [],
    });
    const bad = await save(org.key, caller({ name: 42 }), 201);
    const badRun = await h.request('POST', `/api/v1/workflows/${bad.id}/execute`, { key: org.key, body: {} });
    const failed = await h.waitForExecution(org.key, ((await badRun.json()) as any).execution_id, (e) =>
      ['failed', 'success', 'partial'].includes(e.status),
    );
    // The step fails (on_failure defaults to continue: the run ends partial) and no child is recorded.
    expect(failed.status).toBe('partial');
    expect(failed.steps[0]).toMatchObject({ status: 'failed', output: null });
    expect(failed.steps[0].error.message).toMatch(/input schema: name must be string/);

    const good = await save(org.key, caller({ name: 'Grace' }), 201);
    const goodRun = await h.request('POST', `/api/v1/workflows/${good.id}/execute`, {
      key: org.key,
      body: {},
    });
    const parentId = ((await goodRun.json()) as any).execution_id;
    const parent = await h.waitForExecution(org.key, parentId, (e) => e.status === 'success');
    const child = await h.waitForExecution(
      org.key,
      parent.steps[0].output.execution_id,
      (e) => e.status === 'success',
    );
    expect(child).toMatchObject({ trigger: 'tool', parent_execution_id: parentId });
  });
});
