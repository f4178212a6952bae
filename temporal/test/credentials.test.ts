/**
 * Credentials at run time: an HTTP node authenticates with a stored credential, and the token
 * reaches the target server only, never a step record, the execution's answer or Temporal history.
 */
import { createServer, type Server } from 'node:http';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOKEN = 'tok_live_9f8e7d6c5b4a3210SECRET';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
const seenAuthorization: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization);
    const authorized = req.headers.authorization === `Bearer ${TOKEN}`;
    res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ authorized }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

async function post(path: string, body: unknown) {
  const res = await h.request('POST', path, { key: org.key, body });
  const json = (await res.json()) as any;
  return { status: res.status, json };
}

/** Saves a manual workflow with one HTTP node of `config`, runs it, and returns the settled step. */
async function runHttpNode(name: string, config: Record<string, unknown>) {
  const workflow = await post('/api/v1/workflows', {
    name,
    trigger_type: 'manual',
    status: 'active',
    nodes: [{ id: 'call', type: 'action.http_request', config: { url: `${baseUrl}/private`, ...config } }],
  });
  expect(workflow.status, JSON.stringify(workflow.json)).toBe(201);
  const started = await post(`/api/v1/workflows/${workflow.json.id}/execute`, { input: {} });
  expect(started.status).toBe(202);
  const executionId = started.json.execution_id as string;
  const execution = await h.waitForExecution(org.key, executionId);
  return { executionId, execution, step: execution.steps.find((s: any) => s.node_id === 'call') };
}

describe('an HTTP node with a credential', () => {
  it('sends the token to the target only; steps, answers and history never hold it', async () => {
    const credential = await post('/api/v1/credentials', {
      name: 'Target API',
      type: 'http_bearer',
      fields: { token: TOKEN },
    });
    expect(credential.status).toBe(201);
    const { executionId, execution, step } = await runHttpNode('authenticated call', {
      credential_id: credential.json.id,
    });
    expect(execution.status).toBe('success');
    expect(step.output.body).toEqual({ authorized: true });
    expect(step.resolved_config.credential_id).toBe(credential.json.id);
    expect(seenAuthorization).toEqual([`Bearer ${TOKEN}`]);

    const secretPart = TOKEN.slice(8, 24);
    expect(JSON.stringify(execution)).not.toContain(secretPart);
    const rows = await h.db.admin`select * from execution_steps where execution_id = ${executionId}`;
    expect(JSON.stringify(rows)).not.toContain(secretPart);
    const history = await h.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(secretPart);
    expect(Buffer.from(JSON.stringify(history)).toString('base64')).not.toContain(
      Buffer.from(secretPart).toString('base64'),
    );
  });

  it('fails the step with credential_invalid when the credential is gone, without a call', async () => {
    const credential = await post('/api/v1/credentials', {
      name: 'Short-lived',
      type: 'http_bearer',
      fields: { token: TOKEN },
    });
    const workflow = await post('/api/v1/workflows', {
      name: 'loses its credential',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'call',
          type: 'action.http_request',
          config: { url: `${baseUrl}/private`, credential_id: credential.json.id },
        },
      ],
    });
    // Deleted behind the API's back (the API refuses to delete a credential in use).
    await h.db.admin`delete from credentials where id = ${credential.json.id}`;
    const calls = seenAuthorization.length;
    const started = await post(`/api/v1/workflows/${workflow.json.id}/execute`, { input: {} });
    const execution = await h.waitForExecution(org.key, started.json.execution_id);
    const step = execution.steps.find((s: any) => s.node_id === 'call');
    expect(step.status).toBe('failed');
    expect(step.error.code, step.error.message).toBe('credential_invalid');
    expect(seenAuthorization.length).toBe(calls);
  });

  it('{{credentials.<name>.<field>}} resolves only inside the activity; the trace shows [credential:<name>]', async () => {
    const credential = await post('/api/v1/credentials', {
      name: 'target',
      type: 'http_bearer',
      fields: { token: TOKEN },
    });
    expect(credential.status).toBe(201);
    const calls = seenAuthorization.length;
    const { executionId, step } = await runHttpNode('expression credential', {
      headers: { Authorization: 'Bearer {{credentials.target.token}}' },
    });
    expect(step.status, JSON.stringify(step.error)).toBe('completed');
    expect(seenAuthorization.slice(calls)).toEqual([`Bearer ${TOKEN}`]);
    expect(step.resolved_config.headers).toEqual({ Authorization: 'Bearer [credential:target]' });
    const secretPart = TOKEN.slice(8, 24);
    const rows = await h.db.admin`select * from execution_steps where execution_id = ${executionId}`;
    expect(JSON.stringify(rows)).not.toContain(secretPart);
    const history = await h.client.workflow.getHandle(`exec-${executionId}`).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(secretPart);

    // Elsewhere than an HTTP node, or without a field: refused at save.
    const inTransform = await post('/api/v1/workflows', {
      name: 'leaky',
      trigger_type: 'manual',
      nodes: [
        {
          id: 't',
          type: 'action.transform',
          config: { assignments: [{ key: 'x', value: '{{credentials.target.token}}' }] },
        },
      ],
    });
    expect(inTransform.status).toBe(422);
    const noField = await post('/api/v1/workflows', {
      name: 'no field',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'c',
          type: 'action.http_request',
          config: { url: `${baseUrl}/x`, headers: { 'X-A': '{{credentials.target}}' } },
        },
      ],
    });
    expect(noField.status).toBe(422);
  });

  it('an unknown credential name fails the step with credential_invalid, without a call', async () => {
    const calls = seenAuthorization.length;
    const { step } = await runHttpNode('unknown name', {
      headers: { Authorization: 'Bearer {{credentials.nobody.token}}' },
    });
    expect(step.error.code).toBe('credential_invalid');
    expect(seenAuthorization.length).toBe(calls);
  });
});
