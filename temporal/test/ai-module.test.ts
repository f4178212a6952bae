/**
 * The AI module end to end: an organization's AI module pointed at a local server that speaks the
 * OpenAI chat-completions JSON; an AI node's answer feeds a condition; a 429 with Retry-After is
 * retried after that wait, once.
 */
import { createServer, type Server } from 'node:http';
import { createEngineHarness, type EngineHarness } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: EngineHarness;
let org: { organizationId: string; key: string };
let server: Server;
let baseUrl: string;
const requests: { at: number; body: any }[] = [];
let rateLimitNext = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      requests.push({ at: Date.now(), body: JSON.parse(raw) });
      if (req.headers.authorization !== 'Bearer sk-local') {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end('{"error":{"message":"bad key"}}');
      }
      if (rateLimitNext > 0) {
        rateLimitNext--;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end('{"error":{"message":"slow down"}}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          model: 'local-model',
          choices: [{ message: { role: 'assistant', content: '{"score": 8}' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 20, completion_tokens: 6 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  h = await createEngineHarness({ ssrfAllowlist: ['127.0.0.0/8'] });
  org = await h.createOrg();
  const configured = await h.request('PUT', '/api/v1/modules/ai', {
    key: org.key,
    body: {
      provider: 'openai',
      base_url: `${baseUrl}/v1`,
      api_key: 'sk-local',
      default_model: 'local-model',
    },
  });
  expect(configured.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await h?.close();
  server?.close();
});

async function run(nodes: unknown[], edges: unknown[] = [], input: Record<string, unknown> = {}) {
  const created = await h.request('POST', '/api/v1/workflows', {
    key: org.key,
    body: { name: 'ai', trigger_type: 'manual', status: 'active', nodes, edges },
  });
  const workflow = (await created.json()) as any;
  expect(created.status, JSON.stringify(workflow)).toBe(201);
  const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
    key: org.key,
    body: { input },
  });
  const { execution_id } = (await started.json()) as any;
  return h.waitForExecution(org.key, execution_id, undefined, 30_000);
}

const step = (execution: any, id: string) => execution.steps.find((s: any) => s.node_id === id);

describe('action.ai.prompt', () => {
  it("the answer's JSON feeds a condition; the prompt is interpolated; the key never shows", async () => {
    const execution = await run(
      [
        { id: 'ask', type: 'action.ai.prompt', config: { prompt: 'Rate {{trigger.product}}', json: true } },
        {
          id: 'good',
          type: 'action.condition',
          config: { conditions: [{ left: '{{nodes.ask.json.score}}', operator: 'gt', right: '5' }] },
        },
        { id: 'praise', type: 'action.transform', config: { assignments: [{ key: 'say', value: 'great' }] } },
      ],
      [
        { source: 'ask', target: 'good' },
        { source: 'good', target: 'praise', source_handle: 'true' },
      ],
      { product: 'the lamp' },
    );
    expect(execution.status).toBe('success');
    expect(step(execution, 'ask').output).toEqual({
      text: '{"score": 8}',
      json: { score: 8 },
      model: 'local-model',
      usage: { input_tokens: 20, output_tokens: 6 },
      finish_reason: 'stop',
    });
    expect(step(execution, 'praise').status).toBe('completed');
    expect(requests.at(-1)?.body.messages).toEqual([{ role: 'user', content: 'Rate the lamp' }]);
    expect(JSON.stringify(execution)).not.toContain('sk-local');
  });

  it('a 429 is retried after its Retry-After, and the step then succeeds', async () => {
    rateLimitNext = 1;
    const before = requests.length;
    const execution = await run([{ id: 'ask', type: 'action.ai.prompt', config: { prompt: 'Hi' } }]);
    expect(execution.status).toBe('success');
    const mine = requests.slice(before);
    expect(mine).toHaveLength(2);
    expect((mine[1]?.at ?? 0) - (mine[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('a module deleted since fails the step with module_not_configured, without a call', async () => {
    const other = await h.createOrg('No AI');
    const created = await h.request('POST', '/api/v1/workflows', {
      key: other.key,
      body: {
        name: 'no module',
        trigger_type: 'manual',
        // A draft: activating it would be refused (the AI module is not set up); a test run still runs.
        status: 'draft',
        nodes: [{ id: 'ask', type: 'action.ai.prompt', config: { prompt: 'Hi' } }],
      },
    });
    const workflow = (await created.json()) as any;
    const before = requests.length;
    const started = await h.request('POST', `/api/v1/workflows/${workflow.id}/execute`, {
      key: other.key,
      body: {},
    });
    const execution = await h.waitForExecution(other.key, ((await started.json()) as any).execution_id);
    expect(step(execution, 'ask').error.code).toBe('module_not_configured');
    expect(requests.length).toBe(before);
  });
});
