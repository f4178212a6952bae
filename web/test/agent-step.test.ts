import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpFake, startMcpFake } from '../../temporal/test/mcp-fake';
import { type ModelFake, startOpenAiFake } from '../../temporal/test/model-fakes';
import { expectAccessible, inEveryVariant, screenshot } from './browser';
import { type BrowserInstallation, startBrowserInstallation } from './installation';

// An AI agent's step as a person reads it: in the execution view, each tool call with its
// arguments, result or error, tokens and time; on the dashboard, the tokens and estimated cost.

let app: BrowserInstallation;
let model: ModelFake;
let mcp: McpFake;
/** expect.poll waits 1 s by default: too short for a busy machine. Bounded by the test's timeout. */
const POLL = { timeout: 30_000 };

/** The API as the signed-in page calls it (session cookie + CSRF token). */
async function apiCall(page: Page, method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown) {
  const csrf = await page.evaluate(
    async () => ((await (await fetch('/api/v1/me')).json()) as { csrf_token: string }).csrf_token,
  );
  const res = await page.request.fetch(`/api/v1${path}`, {
    method,
    headers: { 'X-CSRF-Token': csrf },
    ...(data === undefined ? {} : { data }),
  });
  return { status: res.status(), body: (await res.json()) as any };
}

beforeAll(async () => {
  [model, mcp] = await Promise.all([startOpenAiFake(), startMcpFake()]);
  app = await startBrowserInstallation({
    organization_name: 'Agent Desk',
    name: 'Ada Agent',
    email: 'ada@agents.test',
  });
}, 180_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([model?.close(), mcp?.close()]);
});

describe('the agent step', () => {
  it('shows each tool call (arguments, result or error, tokens, time) in both themes and widths, accessibly', async () => {
    const page = await (await app.signedIn()).newPage();
    await page.goto('/');
    const configured = await apiCall(page, 'PUT', '/modules/ai', {
      provider: 'openai',
      base_url: model.url,
      api_key: 'sk-fake-openai',
      default_model: 'gpt-4o-mini',
    });
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    const created = await apiCall(page, 'POST', '/workflows', {
      name: 'Order questions',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'agent',
          type: 'action.ai.agent',
          name: 'Answer the customer',
          config: { prompt: 'Where are orders B2 and Z9?', tools: [{ mcp_url: mcp.url }] },
        },
      ],
      edges: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    model.script(
      {
        tool_calls: [
          { name: 'lookup_order', arguments: { order_id: 'B2' } },
          { name: 'lookup_order', arguments: { order_id: 'Z9' } },
        ],
        usage: { input_tokens: 812, output_tokens: 64 },
      },
      { text: 'B2 has shipped; I found no order Z9.', usage: { input_tokens: 1020, output_tokens: 31 } },
    );
    const started = await apiCall(page, 'POST', `/workflows/${created.body.id}/execute`, { input: {} });
    expect(started.status).toBe(202);
    const id = started.body.execution_id as string;
    await expect
      .poll(async () => (await apiCall(page, 'GET', `/executions/${id}`)).body.status, POLL)
      .toBe('success');

    await page.goto(`/executions/${id}`);
    const calls = page.getByRole('region', { name: 'Agent calls' });
    await calls.getByText('Agent: 2 model calls, 2 tool calls').waitFor();
    const items = calls.getByRole('listitem');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toMatch(
      /lookup_order.*step 1 · \d+ ms · model 812 in \/ 64 out/s,
    );
    expect(await items.nth(0).textContent()).toContain('"status": "shipped"');
    expect(await items.nth(1).textContent()).toContain('No order Z9');
    // On the canvas too: the agent's card says what it did in that run.
    await page.goto(`/workflows/${created.body.id}/edit?execution=${id}`);
    await expect
      .poll(() => page.locator('.svelte-flow__node[data-id="agent"] .agent').textContent(), POLL)
      .toBe('2 tool calls · 1,927 tokens');
    await screenshot(page, 'agent-step-canvas-wide-light');
    await page.context().close();

    await inEveryVariant(async ({ width, dark, variant }) => {
      const shot = await (await app.signedIn({ width, dark })).newPage();
      await shot.goto(`/executions/${id}`);
      await shot.getByRole('region', { name: 'Agent calls' }).getByText('No order Z9').waitFor();
      await expectAccessible(shot, `agent step (${variant})`);
      await screenshot(shot, `agent-step-${variant}`);
      await shot.context().close();
    });
  });

  it('the dashboard shows the tokens and the estimated cost, per workflow', async () => {
    const page = await (await app.signedIn()).newPage();
    await page.goto('/');
    const usage = page.getByRole('region', { name: 'AI usage, last 14 days' });
    await usage.getByText('1,832').first().waitFor();
    // 1832 input and 95 output tokens at gpt-4o-mini's list price.
    expect(await usage.textContent()).toContain('$0.0003');
    await usage.getByRole('link', { name: 'Order questions' }).waitFor();
    await expectAccessible(page, 'dashboard with AI usage');
    await screenshot(page, 'dashboard-ai-usage-wide-light');
    await page.context().close();
  });
});
