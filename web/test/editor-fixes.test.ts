import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountingServer, Stack } from '../../temporal/test/support';
import { expectAccessible, screenshot, type WIDTHS } from './browser';
import { type BrowserInstallation, pageApi, startBrowserInstallation } from './installation';

// What hurt in the editor (issue 21 §1), each acted out as a person would do it: type, press keys,
// look. One installation; the tests build on each other's workflows in order.

let stack: Stack;
let http: CountingServer;
let workflowId = '';
const POLL = { timeout: 30_000 };

let installation: BrowserInstallation | undefined;

beforeAll(async () => {
  installation = await startBrowserInstallation({
    organization_name: 'Fixes Co',
    name: 'Fay Fixer',
    email: 'fay@fixes.test',
  });
  ({ stack, http } = installation);
}, 180_000);

afterAll(async () => {
  await installation?.close();
});

const open = (options: { width?: keyof typeof WIDTHS; dark?: boolean } = {}) =>
  (installation as BrowserInstallation).openPage(options);

const api = pageApi;

async function waitForExecution(page: Page, id: string, done = /success|partial|failed/) {
  await expect
    .poll(async () => (await api(page, 'GET', `/executions/${id}`)).json.status, POLL)
    .toMatch(done);
  return (await api(page, 'GET', `/executions/${id}`)).json;
}

const node = (page: Page, id: string) => page.locator(`.svelte-flow__node[data-id="${id}"]`);
const pane = (page: Page) => page.locator('.svelte-flow__pane').click({ position: { x: 5, y: 5 } });

/** Selects all of a field's text and types over it, as a person does. */
async function typeOver(page: Page, selector: string, text: string) {
  const field = page.locator(selector);
  await field.click();
  await field.press('Control+a');
  await field.pressSequentially(text);
}

async function saveWithKeys(page: Page, version: number) {
  await page.keyboard.press('Control+s');
  await page.getByText(`Saved as version ${version}.`).waitFor();
}

describe('the editor saves what is typed', () => {
  it('Ctrl+S in a field saves its new value (name, step label, URL, cron), and the cron is described as it is typed', {
    timeout: 120_000,
  }, async () => {
    const page = await open();
    const created = await api(page, 'POST', '/workflows', {
      name: 'Keyboard saver',
      trigger_type: 'schedule',
      trigger_config: { cron: '0 9 * * *', timezone: 'UTC' },
      nodes: [
        {
          id: 'call',
          type: 'action.http_request',
          name: 'Call the shop',
          config: { method: 'GET', url: `${http.baseUrl}/before` },
          position: { x: 0, y: 0 },
        },
        {
          id: 'shape',
          type: 'action.transform',
          config: { assignments: [{ key: 'said', value: '{{ nodes.call.error.message }}' }] },
          position: { x: 288, y: 0 },
        },
      ],
      edges: [{ source: 'call', target: 'shape' }],
    });
    expect(created.status).toBe(201);
    workflowId = created.json.id;
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'call').waitFor();

    await typeOver(page, '#workflow-name', 'Saved by keyboard');
    await saveWithKeys(page, 2);

    await node(page, 'call').click();
    await typeOver(page, '#node-label', 'Fetch orders');
    await saveWithKeys(page, 3);
    await typeOver(page, '#field-config-url', `${http.baseUrl}/orders`);
    await saveWithKeys(page, 4);

    await pane(page);
    const words = page.locator('.schedule p').first();
    const before = await words.textContent();
    await typeOver(page, '#trigger-cron', '15 7 * * 1');
    // Described while the cursor is still in the field.
    await expect.poll(() => words.textContent(), POLL).not.toBe(before);
    expect(await page.locator('#trigger-cron:focus').count()).toBe(1);
    await saveWithKeys(page, 5);
    await page.getByText('Saved · v5').waitFor();

    await page.reload();
    await node(page, 'call').waitFor();
    expect(await page.locator('#workflow-name').inputValue()).toBe('Saved by keyboard');
    expect(await page.locator('#trigger-cron').inputValue()).toBe('15 7 * * 1');
    await expect.poll(() => node(page, 'call').locator('.label').textContent()).toBe('Fetch orders');
    await node(page, 'call').click();
    expect(await page.locator('#node-label').inputValue()).toBe('Fetch orders');
    expect(await page.locator('#field-config-url').inputValue()).toBe(`${http.baseUrl}/orders`);
    const [row] = await stack.db
      .admin`select name, version, trigger_config from workflows where id = ${workflowId}`;
    expect(row?.name).toBe('Saved by keyboard');
    expect(row?.version).toBe(5);
    expect((row?.trigger_config as { cron?: string } | undefined)?.cron).toBe('15 7 * * 1');
    await page.context().close();
  });

  it('refuses an empty name (UI and API) and says validation problems in words', {
    timeout: 60_000,
  }, async () => {
    const page = await open();
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'call').waitFor();
    await page.locator('#workflow-name').click();
    await page.locator('#workflow-name').press('Control+a');
    await page.locator('#workflow-name').press('Backspace');
    await page.keyboard.press('Control+s');
    await page.getByText('A workflow needs a name.').waitFor();
    expect(await page.locator('#workflow-name').getAttribute('aria-invalid')).toBe('true');
    const [row] = await stack.db.admin`select name from workflows where id = ${workflowId}`;
    expect(row?.name).toBe('Saved by keyboard');

    const empty = await api(page, 'POST', '/workflows', { name: '   ', trigger_type: 'manual' });
    expect(empty.status).toBe(422);
    expect(empty.json.error.fields.name).toEqual(['The name field is required.']);
    const noUrl = await api(page, 'POST', '/workflows', {
      name: 'No URL',
      trigger_type: 'manual',
      nodes: [{ id: 'call', type: 'action.http_request', config: { url: '' } }],
    });
    expect(noUrl.status).toBe(422);
    const messages = Object.values(noUrl.json.error.fields as Record<string, string[]>).flat();
    expect(messages).toContain('is required');
    for (const message of messages) expect(message).not.toMatch(/Too small|expected string|>=/);
    await page.context().close();
  });

  it('asks before leaving with unsaved changes', { timeout: 60_000 }, async () => {
    const page = await open();
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'call').waitFor();
    await typeOver(page, '#workflow-name', 'Not saved yet');
    await page.locator('#workflow-name').press('Tab');
    await page.getByText('Unsaved changes').waitFor();
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Back to the workflow’s page' }).click();
    await expect.poll(() => asked.length, POLL).toBe(1);
    expect(asked[0]).toMatch(/unsaved changes/);
    expect(page.url()).toMatch(/\/edit$/);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Back to the workflow’s page' }).click();
    await page.waitForURL(new RegExp(`/workflows/${workflowId}$`));
    await page.context().close();
  });
});

type Box = { x: number; y: number; width: number; height: number };

// Run in the page (the app's CSP refuses strings to evaluate); the DOM is reached through
// globalThis since these tests compile without the DOM library.
type Dom = any;

/** True once the canvas's viewport transform stopped changing (the fit is done). */
function still() {
  const el = (globalThis as Dom).document.querySelector('.svelte-flow__viewport');
  const now = el.style.transform;
  const was = el.dataset.was;
  el.dataset.was = now;
  return was === now;
}

/** The canvas as drawn: its zoom, the smallest text and handle on screen, where things are. */
function measure() {
  const { document, getComputedStyle, DOMMatrix } = globalThis as Dom;
  const viewport = document.querySelector('.svelte-flow__viewport');
  const zoom: number = new DOMMatrix(getComputedStyle(viewport).transform).a;
  const all = (s: string): Dom[] => [...document.querySelectorAll(s)];
  const fonts = all('.svelte-flow__node .card .label, .svelte-flow__node .card .type').map(
    (el) => Number.parseFloat(getComputedStyle(el).fontSize) * zoom,
  );
  const handles = all('.svelte-flow__node .svelte-flow__handle').map(
    (el) => el.getBoundingClientRect().width,
  );
  const trigger = document.querySelector('.svelte-flow__node-trigger')?.getBoundingClientRect();
  const steps = all('.svelte-flow__node-step').map((el) => el.getBoundingClientRect().x);
  const rect = (s: string): Box | undefined => document.querySelector(s)?.getBoundingClientRect()?.toJSON();
  return {
    zoom,
    smallestFont: Math.min(...fonts),
    smallestHandle: Math.min(...handles),
    triggerX: (trigger?.x as number | undefined) ?? Number.NaN,
    firstStepX: Math.min(...steps),
    minimap: rect('.svelte-flow__minimap'),
    controls: rect('.svelte-flow__controls'),
  };
}

describe('the test-run dialog', () => {
  it('lines its radio buttons up with their labels', { timeout: 60_000 }, async () => {
    for (const dark of [false, true]) {
      const page = await open({ dark });
      await page.goto(`/workflows/${workflowId}/edit`);
      await node(page, 'call').waitFor();
      await page.keyboard.press('Control+Enter');
      const dialog = page.getByRole('dialog', { name: 'Test run' });
      await dialog.waitFor();
      const radios = dialog.getByRole('radio');
      expect(await radios.count()).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < (await radios.count()); i++) {
        const radio = await radios.nth(i).boundingBox();
        const label = await dialog.locator('label.check').nth(i).boundingBox();
        if (!radio || !label) throw new Error('no radio or label');
        // Vertically centred on its label's line, and left-aligned in the group.
        expect(Math.abs(radio.y + radio.height / 2 - (label.y + label.height / 2))).toBeLessThanOrEqual(2);
        expect(radio.width).toBeLessThanOrEqual(24);
      }
      await expectAccessible(page, `test-run dialog ${dark ? 'dark' : 'light'}`);
      await screenshot(page, `editor-test-run-dialog-wide-${dark ? 'dark' : 'light'}`);
      await page.context().close();
    }
  });
});

describe('a canvas a person can read', () => {
  it('opens the biggest template at 1280 px with text ≥ 11 px and handles ≥ 10 px on screen, the trigger first', {
    timeout: 90_000,
  }, async () => {
    const page = await open();
    const templates = (await api(page, 'GET', '/templates')).json.data as {
      id: string;
      node_count: number;
    }[];
    const biggest = templates
      .map((t) => ({ id: t.id, nodes: t.node_count }))
      .sort((a, b) => b.nodes - a.nodes)[0] as { id: string; nodes: number };
    expect(biggest.nodes).toBeGreaterThanOrEqual(9);
    const clone = await api(page, 'POST', `/templates/${biggest.id}/clone`);
    expect(clone.status).toBe(201);
    for (const dark of [false, true]) {
      const look = dark ? await open({ dark: true }) : page;
      await look.goto(`/workflows/${clone.json.id}/edit`);
      await look.locator('.svelte-flow__node-step').first().waitFor();
      // Fitted (the viewport stops moving), then measured as drawn.
      await expect
        .poll(() => look.locator('.svelte-flow__viewport').getAttribute('style'), POLL)
        .toMatch(/scale/);
      await look.waitForFunction(still, undefined, { polling: 300 });
      const measured = await look.evaluate(measure);
      expect(measured.smallestFont).toBeGreaterThanOrEqual(11);
      expect(measured.smallestHandle).toBeGreaterThanOrEqual(10);
      expect(measured.triggerX).toBeLessThan(measured.firstStepX);
      const { minimap, controls } = measured;
      if (minimap && controls) {
        const overlaps =
          minimap.x < controls.x + controls.width &&
          controls.x < minimap.x + minimap.width &&
          minimap.y < controls.y + controls.height &&
          controls.y < minimap.y + minimap.height;
        expect(overlaps).toBe(false);
      }
      // Keyboard focus on a step is visible: a ring of at least 2 px.
      await look.locator('.svelte-flow__node-step').first().focus();
      const ring = await look
        .locator('.svelte-flow__node-step:focus-visible .card, .svelte-flow__node-step:focus .card')
        .first()
        .evaluate((el) => Number.parseFloat((globalThis as Dom).getComputedStyle(el).outlineWidth));
      expect(ring).toBeGreaterThanOrEqual(2);
      await expectAccessible(look, `big template ${dark ? 'dark' : 'light'}`);
      await screenshot(look, `editor-big-template-wide-${dark ? 'dark' : 'light'}`);
      if (dark) await look.context().close();
    }
    const narrow = await open({ width: 'narrow' });
    await narrow.goto(`/workflows/${clone.json.id}/edit`);
    await narrow.locator('.svelte-flow__node-step').first().waitFor();
    await expectAccessible(narrow, 'big template narrow');
    await screenshot(narrow, 'editor-big-template-narrow-light');
    await narrow.context().close();
    await page.context().close();
  });
});

describe('failures, runs and what they say', () => {
  let partialId = '';

  it('a failed step goes on as its label says, hands its error on, and the run page shows labels and the HTTP answer', {
    timeout: 90_000,
  }, async () => {
    const page = await open();
    http.failing.add('/orders');
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'call').click();
    expect(await page.locator('#node-on-failure option:checked').textContent()).toMatch(
      /later steps still run/,
    );
    await page.getByText('nodes.call.error.message').first().waitFor();
    const started = await api(page, 'POST', `/workflows/${workflowId}/execute`, { input: {} });
    expect(started.status).toBe(202);
    partialId = started.json.execution_id;
    const execution = await waitForExecution(page, partialId);
    expect(execution.status).toBe('partial');
    expect(execution.trigger).toBe('manual');
    const shape = execution.steps.find((s: { node_id: string }) => s.node_id === 'shape');
    expect(shape.output).toEqual({ said: `HTTP 400 from ${new URL(http.baseUrl).host}` });

    await page.goto(`/executions/${partialId}`);
    await page.locator('.step strong', { hasText: 'Fetch orders' }).waitFor();
    await page.getByText('Manual run').waitFor();
    const details = page.locator('details', { hasText: 'What came back' });
    await expect.poll(() => details.textContent(), POLL).toMatch(/not yet/);
    await expectAccessible(page, 'partial execution');
    await screenshot(page, 'execution-partial-wide-light');
    http.failing.delete('/orders');
    await page.context().close();
  });

  it('the dashboard counts partial runs', { timeout: 60_000 }, async () => {
    for (const [width, dark] of [
      ['wide', false],
      ['narrow', true],
    ] as const) {
      const page = await open({ width, dark });
      await page.getByText('Partial today').waitFor();
      await expect
        .poll(() => page.locator('.stat', { hasText: 'Partial today' }).locator('strong').textContent(), POLL)
        .toBe('1');
      await page.getByRole('heading', { name: 'Latest failures and partial runs' }).waitFor();
      await page.locator(`a[href="/executions/${partialId}"]`).waitFor();
      expect(await page.getByText('No failures').count()).toBe(0);
      await expectAccessible(page, `dashboard ${width}`);
      await screenshot(page, `dashboard-${width}-${dark ? 'dark' : 'light'}`);
      await page.context().close();
    }
  });

  it('the executions list updates by itself while visible, and on Refresh', { timeout: 60_000 }, async () => {
    const page = await open();
    let listCalls = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/executions') listCalls++;
    });
    await page.goto('/executions');
    await page.locator(`a[href="/executions/${partialId}"]`).waitFor();
    const rows = () => page.locator('tbody tr').count();
    const before = await rows();
    const started = await api(page, 'POST', `/workflows/${workflowId}/execute`, { input: {} });
    await waitForExecution(page, started.json.execution_id);
    // No reload, no click: the new run appears.
    await page.locator(`a[href="/executions/${started.json.execution_id}"]`).waitFor({ timeout: 20_000 });
    expect(await rows()).toBe(before + 1);
    expect(listCalls).toBeGreaterThanOrEqual(2);
    const calls = listCalls;
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => listCalls, POLL).toBeGreaterThan(calls);
    await expectAccessible(page, 'executions');
    await screenshot(page, 'executions-wide-light');
    await page.context().close();
  });

  it('a partial run is retried from its failed steps: a new run that reuses what worked', {
    timeout: 60_000,
  }, async () => {
    const page = await open({ width: 'narrow', dark: true });
    const ordersBefore = http.byPath('/orders');
    await page.goto(`/executions/${partialId}`);
    await page.getByRole('button', { name: 'Retry failed steps' }).click();
    // The retry is a new execution: the page moves to it, and it links back to the partial one.
    await page.waitForURL(
      (url) => url.pathname.startsWith('/executions/') && !url.pathname.endsWith(partialId),
    );
    const retryId = page.url().split('/').pop() as string;
    await page.getByRole('link', { name: 'the partial execution' }).waitFor();
    const retried = await waitForExecution(page, retryId);
    expect(retried.status).toBe('success');
    expect(retried.retry_of).toBe(partialId);
    // The failed HTTP step called out once more, and the step after it ran on its new answer.
    expect(http.byPath('/orders')).toBe(ordersBefore + 1);
    const stepOf = (id: string) => retried.steps.find((s: { node_id: string }) => s.node_id === id);
    expect(stepOf('call').status).toBe('completed');
    expect(stepOf('shape').output).toEqual({ said: null });
    await page.getByText('Retry', { exact: true }).first().waitFor();
    await expectAccessible(page, 'retried execution');
    await screenshot(page, 'execution-retry-of-partial-narrow-dark');
    await page.context().close();
  });

  it('the read-only canvas of an execution uses the whole width, its minimap clear of the zoom buttons', {
    timeout: 60_000,
  }, async () => {
    for (const width of ['wide', 'narrow'] as const) {
      const page = await open({ width });
      await page.goto(`/workflows/${workflowId}/edit?execution=${partialId}`);
      await page.getByText(/Viewing a past execution/).waitFor();
      await node(page, 'call').waitFor();
      const canvas = await page.locator('.canvas-wrap').boundingBox();
      expect(canvas?.width ?? 0).toBeGreaterThan(width === 'wide' ? 800 : 350);
      const minimap = await page.locator('.svelte-flow__minimap').boundingBox();
      const controls = await page.locator('.svelte-flow__controls').boundingBox();
      if (minimap && controls)
        expect(minimap.x < controls.x + controls.width && controls.x < minimap.x + minimap.width).toBe(false);
      await expectAccessible(page, `execution canvas ${width}`);
      await screenshot(page, `editor-execution-${width}-light`);
      await page.context().close();
    }
  });

  it('refuses to activate a workflow whose step needs a module that is not set up, naming both', {
    timeout: 60_000,
  }, async () => {
    const page = await open();
    const created = await api(page, 'POST', '/workflows', {
      name: 'Mailer',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'mail',
          type: 'action.email.send',
          name: 'Mail the customer',
          config: { to: 'a@b.test', subject: 'Hi', body: 'Hello' },
        },
      ],
    });
    expect(created.status).toBe(201);
    const refused = await api(page, 'PUT', `/workflows/${created.json.id}`, {
      ...created.json,
      status: 'active',
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error.message).toMatch(/Mail the customer.*e-mail module/);
    expect(refused.json.error.fields['nodes.0.type']).toBeDefined();
    await page.goto(`/workflows/${created.json.id}/edit`);
    await node(page, 'mail').waitFor();
    await page.getByRole('button', { name: 'Activate' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /Mail the customer.*e-mail module/ })
      .waitFor();
    const [row] = await stack.db.admin`select status from workflows where id = ${created.json.id}`;
    expect(row?.status).toBe('draft');
    await screenshot(page, 'editor-activation-refused-wide-light');
    await page.context().close();
  });
});
