import type { APIRequestContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountingServer } from '../../temporal/test/support';
import { expectAccessible, screenshot } from './browser';
import { type BrowserInstallation, sessionApi, startBrowserInstallation } from './installation';

// The workbench outside the canvas (issue 21 §2, DESIGN §15): "Replay on this version" on an
// execution's page opens the node-by-node comparison with its original, and the executions list
// marks and filters test runs. The replay never calls the HTTP server the original called.

let http: CountingServer;
let base = '';
const POLL = { timeout: 30_000 };

let installation: BrowserInstallation | undefined;

beforeAll(async () => {
  installation = await startBrowserInstallation(
    { organization_name: 'Replay Co', name: 'Rae Replayer', email: 'rae@replay.test' },
    { SSRF_ALLOWLIST: '127.0.0.0/8' },
  );
  ({ http, base } = installation);
}, 180_000);

afterAll(async () => {
  await installation?.close();
});

const signedIn = (options?: { width?: 'wide' | 'narrow'; dark?: boolean }) =>
  (installation as BrowserInstallation).signedIn(options);
const apiAs = (request: APIRequestContext) => sessionApi(request, base);

const transform = (id: string, value: string) => ({
  id,
  name: id,
  type: 'action.transform',
  config: { assignments: [{ key: 'value', value }] },
});

describe('replay and compare', () => {
  it('replays an execution on the edited graph and shows it node by node; lists it as a test run', {
    timeout: 240_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const nodes = [
      { id: 'fetch', type: 'action.http_request', config: { method: 'GET', url: `${http.baseUrl}/order` } },
      transform('total', '{{nodes.fetch.body.path}} at the old rate'),
      transform('label', 'unchanged'),
    ];
    const edges = [
      { source: 'fetch', target: 'total' },
      { source: 'fetch', target: 'label' },
    ];
    const created = await api('POST', '/workflows', {
      name: 'Order totals',
      trigger_type: 'manual',
      status: 'active',
      nodes,
      edges,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.id as string;
    const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { order: 7 } });
    const originalId = started.body.execution_id as string;
    await expect
      .poll(async () => (await api('GET', `/executions/${originalId}`)).body.status, POLL)
      .toBe('success');
    expect(http.byPath('/order')).toBe(1);

    // The fix under review: a new rate, and a step added.
    const edited = await api('PUT', `/workflows/${workflowId}`, {
      name: 'Order totals',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        nodes[0],
        transform('total', '{{nodes.fetch.body.path}} at the new rate'),
        nodes[2],
        transform('audit', 'checked'),
      ],
      edges: [...edges, { source: 'label', target: 'audit' }],
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);

    const page = await context.newPage();
    await page.goto(`/executions/${originalId}`);
    const replayButton = page.getByRole('button', { name: 'Replay on this version' });
    await replayButton.waitFor();
    await expect.poll(() => page.getByLabel('Version').inputValue(), POLL).toBe('2');
    await expectAccessible(page, 'execution with replay');
    await screenshot(page, 'execution-replay-wide-light');
    // Keyboard only: focus the button and press Enter.
    await replayButton.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/executions/${originalId}/compare/*`);
    const replayId = page.url().split('/').at(-1) as string;

    const card = (nodeId: string) =>
      page.locator('li.node').filter({ has: page.getByText(nodeId, { exact: true }) });
    // Compared once the replay has finished (the page polls while it runs).
    await expect.poll(() => page.locator('.run').nth(1).textContent(), POLL).toContain('success');
    await expect.poll(() => card('total').locator('.badge').textContent(), POLL).toBe('Changed');
    await expect.poll(() => card('label').locator('.badge').textContent(), POLL).toBe('Same');
    expect(await card('fetch').locator('.badge').textContent()).toBe('Same');
    expect(await card('audit').locator('.badge').textContent()).toBe('Added');
    await expect
      .poll(() => card('total').locator('table.fields').textContent(), POLL)
      .toContain('/order at the new rate');
    // The replay took the recorded HTTP answer: the server saw only the original's call.
    expect(http.byPath('/order')).toBe(1);
    await page.getByLabel('Only differences').check();
    await expect.poll(() => page.locator('li.node').count(), POLL).toBe(2);
    await page.getByLabel('Only differences').uncheck();
    await expectAccessible(page, 'compare');

    const comparePath = `/executions/${originalId}/compare/${replayId}`;
    for (const [width, dark] of [
      ['wide', false],
      ['wide', true],
      ['narrow', false],
      ['narrow', true],
    ] as const) {
      const variant = await signedIn({ width, dark });
      const view = await variant.newPage();
      await view.goto(comparePath);
      await view.locator('li.node').first().waitFor();
      await expect.poll(() => view.locator('li.node').count(), POLL).toBe(4);
      await expectAccessible(view, `compare ${width} ${dark ? 'dark' : 'light'}`);
      await screenshot(view, `compare-${width}-${dark ? 'dark' : 'light'}`);
      await variant.close();
    }

    // The replay's own page says what it is and which steps were replayed.
    await page.goto(`/executions/${replayId}`);
    await page.getByText('Replay of').waitFor();
    await expect.poll(() => page.getByText('replayed from the recording').count(), POLL).toBe(1);

    // The list marks test runs, and filters by them.
    await page.goto('/executions');
    await page.getByRole('link', { name: 'Order totals' }).first().waitFor();
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(2);
    expect(await page.locator('tbody tr').first().textContent()).toContain('Replay');
    await page.getByLabel('Runs').selectOption('test');
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(1);
    expect(page.url()).toContain('mode=test');
    await expectAccessible(page, 'executions filtered by mode');
    await screenshot(page, 'executions-test-runs-wide-light');
    await page.getByLabel('Runs').selectOption('production');
    // Both filters show one row: wait for the production run to replace the replay, then count.
    await expect.poll(() => page.locator('tbody tr').first().textContent(), POLL).not.toContain('Replay');
    expect(page.url()).toContain('mode=production');
    expect(await page.locator('tbody tr').count()).toBe(1);
    // The workflow's own page lists its recent runs, the replay marked.
    await page.goto(`/workflows/${workflowId}`);
    await expect.poll(() => page.locator('.recent li').count(), POLL).toBe(2);
    expect(await page.locator('.recent li').first().textContent()).toContain('Replay');
    await expectAccessible(page, 'workflow page with a replay');
    const narrow = await signedIn({ width: 'narrow', dark: true });
    const list = await narrow.newPage();
    await list.goto('/executions?mode=test');
    await expect.poll(() => list.locator('tbody tr').count(), POLL).toBe(1);
    await expectAccessible(list, 'executions narrow dark');
    await screenshot(list, 'executions-test-runs-narrow-dark');
    await narrow.close();
    await context.close();
  });
});

describe('the executions list', () => {
  it('searches by trigger data and execution id, and deletes a selection after asking, keyboard only', {
    timeout: 120_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Guest list',
      trigger_type: 'manual',
      status: 'active',
      nodes: [transform('greet', 'Hello {{trigger.guest}}')],
      edges: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ids: Record<string, string> = {};
    for (const guest of ['Grace Hopper', 'Alan Turing', 'Ada Lovelace']) {
      const started = await api('POST', `/workflows/${created.body.id}/execute`, { input: { guest } });
      ids[guest] = started.body.execution_id;
    }
    for (const id of Object.values(ids)) {
      await expect
        .poll(async () => (await api('GET', `/executions/${id}`)).body.status, POLL)
        .toBe('success');
    }

    const page = await context.newPage();
    await page.goto(`/executions?workflow_id=${created.body.id}`);
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(3);
    // Search by text in the trigger data, typed as a person types (no Enter needed).
    await page.getByLabel('Search').fill('hopper');
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(1);
    expect(page.url()).toContain('q=hopper');
    // By execution id: pasted whole, then Enter.
    await page.getByLabel('Search').fill(ids['Alan Turing'] as string);
    await page.getByLabel('Search').press('Enter');
    await expect
      .poll(() => page.locator('tbody tr a').first().getAttribute('href'), POLL)
      .toBe(`/executions/${ids['Alan Turing']}`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').press('Enter');
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(3);

    // Select the page with the keyboard, then delete after the confirmation.
    await page.getByLabel('Select every execution on this page').focus();
    await page.keyboard.press('Space');
    const bulk = page.getByRole('region', { name: 'Bulk actions' });
    await expect.poll(() => bulk.textContent(), POLL).toContain('3 selected');
    // Ended runs: nothing to retry or cancel.
    expect(await bulk.getByRole('button', { name: 'Retry' }).isDisabled()).toBe(true);
    expect(await bulk.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'executions with a selection');
    await screenshot(page, 'executions-bulk-wide-light');
    await bulk.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.textContent(), POLL).toContain('Delete 3 executions?');
    await dialog.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: '3 executions deleted.' }).waitFor();
    await page.getByText('No executions match').waitFor();
    for (const id of Object.values(ids)) expect((await api('GET', `/executions/${id}`)).status).toBe(404);

    const another = await api('POST', `/workflows/${created.body.id}/execute`, {
      input: { guest: 'Barbara Liskov' },
    });
    await expect
      .poll(async () => (await api('GET', `/executions/${another.body.execution_id}`)).body.status, POLL)
      .toBe('success');
    const narrow = await signedIn({ width: 'narrow', dark: true });
    const small = await narrow.newPage();
    await small.goto(`/executions?workflow_id=${created.body.id}`);
    await small.getByLabel('Select every execution on this page').check();
    await small.getByRole('region', { name: 'Bulk actions' }).waitFor();
    await expectAccessible(small, 'executions selection narrow dark');
    await screenshot(small, 'executions-bulk-narrow-dark');
    await narrow.close();
    await context.close();
  });
});

describe('the whole build loop by keyboard', () => {
  it('builds a workflow, pins a step, runs one step, replays a run on the edited graph and compares, no mouse', {
    timeout: 180_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Keyboard loop',
      trigger_type: 'manual',
      status: 'draft',
      nodes: [],
      edges: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.id as string;
    const page = await context.newPage();
    const press = async (target: ReturnType<Page['locator']>, key = 'Enter') => {
      await target.focus();
      await page.keyboard.press(key);
    };
    await page.goto(`/workflows/${workflowId}/edit`);

    // Build: two steps from the palette, each field typed, saved with Ctrl+S.
    await press(page.getByRole('button', { name: 'Add HTTP Request' }));
    await page.locator('#field-config-url').focus();
    await page.keyboard.type(`${http.baseUrl}/keyboard`);
    await press(page.getByRole('button', { name: 'Add Transform' }));
    await press(page.getByRole('button', { name: 'Add assignment' }));
    await page.locator('#field-config-assignments-0-key').focus();
    await page.keyboard.type('said');
    await page.locator('#field-config-assignments-0-value').focus();
    await page.keyboard.type('v1 {{ nodes.http_request.body.path }}');
    await page.keyboard.press('Control+s');
    await page.getByText(/Saved as version \d+/).waitFor();

    // A first test run (Ctrl+Enter, then Enter on Run) calls the server once.
    await page.keyboard.press('Control+Enter');
    await press(page.getByRole('dialog').getByRole('button', { name: 'Run' }));
    await expect
      .poll(
        async () => (await api('GET', `/executions?workflow_id=${workflowId}`)).body.data[0]?.status,
        POLL,
      )
      .toBe('success');
    expect(http.byPath('/keyboard')).toBe(1);

    // Pin the HTTP step's output from that run; run the transform alone: nothing is called.
    await press(page.locator('.svelte-flow__node[data-id="http_request"]'));
    await page.keyboard.press('Escape');
    const pin = page.getByRole('button', { name: 'Pin output' });
    // Enabled once the canvas shows the run's output of the step.
    await expect.poll(() => pin.isEnabled(), POLL).toBe(true);
    await press(pin);
    await expect
      .poll(() => page.locator('.svelte-flow__node[data-id="http_request"]').getAttribute('class'), POLL)
      .toContain('step-pinned');
    await press(page.locator('.svelte-flow__node[data-id="transform"]'));
    await page.keyboard.press('Escape');
    await press(page.getByRole('button', { name: 'Run this step' }));
    await expect
      .poll(async () => (await api('GET', `/executions?workflow_id=${workflowId}`)).body.data.length, POLL)
      .toBe(2);
    expect(http.byPath('/keyboard')).toBe(1);

    // A production run of version 1 of the transform, then the transform edited and saved.
    // Enabled again once the step's run has ended.
    const activate = page.getByRole('button', { name: 'Activate' });
    await expect.poll(() => activate.isEnabled(), POLL).toBe(true);
    await press(activate);
    await expect
      .poll(async () => (await api('GET', `/workflows/${workflowId}`)).body.status, POLL)
      .toBe('active');
    const started = await api('POST', `/workflows/${workflowId}/execute`, { input: {} });
    const productionId = started.body.execution_id as string;
    await expect
      .poll(async () => (await api('GET', `/executions/${productionId}`)).body.status, POLL)
      .toBe('success');
    const calls = http.byPath('/keyboard');
    const value = page.locator('#field-config-assignments-0-value');
    await value.focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('v2 {{ nodes.http_request.body.path }}');
    await page.keyboard.press('Control+s');
    await expect
      .poll(
        async () => (await api('GET', `/workflows/${workflowId}`)).body.nodes[1]?.config.assignments[0].value,
        POLL,
      )
      .toBe('v2 {{ nodes.http_request.body.path }}');

    // Replay the production run on the edited version, then read the comparison.
    await page.goto(`/executions/${productionId}`);
    await press(page.getByRole('button', { name: 'Replay on this version' }));
    await page.waitForURL(`**/executions/${productionId}/compare/*`);
    const card = (nodeId: string) =>
      page.locator('li.node').filter({ has: page.getByText(nodeId, { exact: true }) });
    await expect.poll(() => card('transform').locator('.badge').textContent(), POLL).toBe('Changed');
    // The replay reused the recorded HTTP answer.
    expect(http.byPath('/keyboard')).toBe(calls);
    await expectAccessible(page, 'compare after the keyboard loop');
    await screenshot(page, 'keyboard-loop-compare-wide-light');
    await context.close();
  });
});
