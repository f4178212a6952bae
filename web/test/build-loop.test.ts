import type { APIRequestContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CountingServer } from '../../temporal/test/support';
import { expectAccessible, screenshot } from './browser';
import { type BrowserInstallation, sessionApi, startBrowserInstallation } from './installation';

// The build loop in the editor (issue 21 §2), as an operator uses it: a test run from the dialog is
// a `mode: test` run; a step's output pinned (from the run, or typed) makes test runs skip it, so a
// pinned HTTP step never calls the server; "Run this step" runs that step alone; "Run up to here"
// and "Run from here"; a disabled step (key D) passes its input through. Test runs are "Test" in
// the executions list.

let http: CountingServer;
let base = '';
const POLL = { timeout: 30_000 };

let installation: BrowserInstallation | undefined;

beforeAll(async () => {
  installation = await startBrowserInstallation(
    { organization_name: 'Loop Co', name: 'Lou Looper', email: 'lou@loop.test' },
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

type Api = Awaited<ReturnType<typeof apiAs>>;
interface StepRow {
  node_id: string;
  status: string;
  source: string | null;
  output?: unknown;
}
interface ExecutionRow {
  id: string;
  status: string;
  mode: string;
  trigger: string;
  steps: StepRow[];
}

const node = (page: Page, id: string) => page.locator(`.svelte-flow__node[data-id="${id}"]`);

/** Waits for the workflow's `count`-th execution to end, and returns it with its steps. */
async function nthRun(api: Api, workflowId: string, count: number): Promise<ExecutionRow> {
  let latest: { id: string; status: string } | undefined;
  await expect
    .poll(async () => {
      const list = await api('GET', `/executions?workflow_id=${workflowId}&per_page=50`);
      latest = list.body.data[0];
      return (
        list.body.data.length === count && ['success', 'partial', 'failed'].includes(latest?.status ?? '')
      );
    }, POLL)
    .toBe(true);
  return (await api('GET', `/executions/${latest?.id}`)).body as ExecutionRow;
}

const stepOf = (run: ExecutionRow, nodeId: string) => run.steps.find((s) => s.node_id === nodeId);

async function select(page: Page, nodeId: string) {
  // Focus first: it pans the canvas to the step when the fitted view leaves it under the side
  // panel or off a phone's screen, so the click lands on it.
  await node(page, nodeId).focus();
  await node(page, nodeId).click();
  await page.getByRole('heading', { name: 'Test this step' }).waitFor();
  // The panel may still show the step selected before (its tools carry the same heading): a click
  // on "Run from here" then runs from that one, as a person clicking too early would.
  const label = (await node(page, nodeId).locator('.label').textContent())?.trim();
  await expect.poll(() => page.locator('#node-panel-title').textContent(), POLL).toBe(label);
}

describe('the build loop in the editor', () => {
  it('test-runs, pins, runs one step, up to and from a step, disables a step', {
    timeout: 240_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Order desk',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'fetch',
          name: 'Fetch order',
          type: 'action.http_request',
          config: { method: 'GET', url: `${http.baseUrl}/order` },
        },
        {
          id: 'shape',
          name: 'Shape',
          type: 'action.transform',
          config: { assignments: [{ key: 'value', value: 'got {{nodes.fetch.body.path}}' }] },
        },
        {
          id: 'notify',
          name: 'Notify',
          type: 'action.transform',
          config: { assignments: [{ key: 'note', value: 'done' }] },
        },
      ],
      edges: [
        { source: 'fetch', target: 'shape' },
        { source: 'shape', target: 'notify' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.id as string;

    const page = await context.newPage();
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'fetch').waitFor();

    // 1. The dialog's test run is a test run (mode test, trigger test), and really calls out.
    await page.getByRole('button', { name: 'Test run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Run' }).click();
    const first = await nthRun(api, workflowId, 1);
    expect(first).toMatchObject({ status: 'success', mode: 'test', trigger: 'test' });
    expect(http.byPath('/order')).toBe(1);

    // After the run the step panel shows what reached the step and what it gave.
    await select(page, 'shape');
    const result = page.getByTestId('step-result');
    await expect.poll(() => result.textContent(), POLL).toContain('Input from Fetch order');
    expect(await result.textContent()).toContain('got /order');

    // 2. Pin the HTTP step's output from that run: marked on the canvas, saved with the workflow.
    await select(page, 'fetch');
    await page.getByRole('button', { name: 'Pin output' }).click();
    await expect.poll(() => node(page, 'fetch').getAttribute('class'), POLL).toContain('step-pinned');
    await page.keyboard.press('Control+s');
    await page.getByText(/Saved as version \d+/).waitFor();
    const saved = await api('GET', `/workflows/${workflowId}`);
    expect(saved.body.nodes[0].pinned_output).toEqual(stepOf(first, 'fetch')?.output);

    // A test run with the pin: the server is not called, the step's output is the pin.
    await page.getByRole('button', { name: 'Test run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Run' }).click();
    const pinned = await nthRun(api, workflowId, 2);
    expect(stepOf(pinned, 'fetch')?.source).toBe('pin');
    expect(stepOf(pinned, 'shape')?.output).toEqual({ value: 'got /order' });
    expect(http.byPath('/order')).toBe(1);
    await expect.poll(() => result.textContent(), POLL).toContain('its pinned output was used');

    // Typed JSON: a clear message for bad JSON and for a non-object, then the pin is replaced.
    await page.getByRole('button', { name: 'Edit the pin' }).click();
    const typed = page.getByLabel('Output to pin (a JSON object)');
    await typed.fill('{"body": {"path": "/typed"');
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), POLL).toContain('This is not valid JSON');
    await typed.fill('[1, 2]');
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), POLL).toContain('must be a JSON object');
    expect(await typed.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'editor, typed pin refused');
    await typed.fill('{"body": {"path": "/typed"}}');
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await expect.poll(() => page.getByText('"/typed"').count(), POLL).toBe(1);

    // 3. Run this step: only "shape" runs; the step before takes its pin, the one after is not run.
    await select(page, 'shape');
    await page.getByRole('button', { name: 'Run this step' }).click();
    const only = await nthRun(api, workflowId, 3);
    expect(only.mode).toBe('test');
    expect(stepOf(only, 'fetch')?.source).toBe('pin');
    expect(stepOf(only, 'shape')).toMatchObject({ source: null, output: { value: 'got /typed' } });
    expect(stepOf(only, 'notify')).toMatchObject({ status: 'skipped', source: 'stopped' });
    await expect.poll(() => result.textContent(), POLL).toContain('got /typed');
    expect(http.byPath('/order')).toBe(1);

    // Run up to here (shape): notify is not run; run from here (notify): the earlier steps are not run.
    await page.getByRole('button', { name: 'Run up to here' }).click();
    const upTo = await nthRun(api, workflowId, 4);
    expect(stepOf(upTo, 'shape')?.source).toBeNull();
    expect(stepOf(upTo, 'notify')?.source).toBe('stopped');
    await select(page, 'notify');
    await page.getByRole('button', { name: 'Run from here' }).click();
    const from = await nthRun(api, workflowId, 5);
    expect(stepOf(from, 'shape')?.source).toBe('recorded');
    expect(stepOf(from, 'notify')).toMatchObject({ source: null, output: { note: 'done' } });
    expect(http.byPath('/order')).toBe(1);

    // 4. Disable "shape" with the keyboard (D on the selected step): dimmed, and it passes its input on.
    await select(page, 'shape');
    await node(page, 'shape').focus();
    await page.keyboard.press('d');
    await expect.poll(() => node(page, 'shape').getAttribute('class'), POLL).toContain('step-disabled');
    expect(await page.getByLabel(/Disable this step/).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Test run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Run' }).click();
    const disabled = await nthRun(api, workflowId, 6);
    expect(stepOf(disabled, 'shape')).toMatchObject({
      source: 'disabled',
      output: { body: { path: '/typed' } },
    });
    expect(stepOf(disabled, 'notify')?.source).toBeNull();
    expect((await api('GET', `/workflows/${workflowId}`)).body.nodes[1].disabled).toBe(true);
    expect(http.byPath('/order')).toBe(1);
    await expectAccessible(page, 'editor with a pinned and a disabled step');
    await screenshot(page, 'build-loop-editor-wide-light');

    // Every run above is a Test in the executions list, and the mode filter finds all of them.
    await page.goto('/executions');
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(6);
    for (const row of await page.locator('tbody tr').all()) expect(await row.textContent()).toContain('Test');
    await page.getByLabel('Runs').selectOption('production');
    await expect.poll(() => page.locator('tbody tr').count(), POLL).toBe(0);

    for (const [width, dark] of [
      ['wide', true],
      ['narrow', false],
      ['narrow', true],
    ] as const) {
      const variant = await signedIn({ width, dark });
      const view = await variant.newPage();
      await view.goto(`/workflows/${workflowId}/edit`);
      await node(view, 'fetch').waitFor();
      await select(view, 'fetch');
      await expect.poll(() => view.getByTestId('step-result').count(), POLL).toBe(1);
      await expectAccessible(view, `build loop ${width} ${dark ? 'dark' : 'light'}`);
      await screenshot(view, `build-loop-editor-${width}-${dark ? 'dark' : 'light'}`);
      await variant.close();
    }
    await context.close();
  });

  it('opens the three-pane step view with Enter, maps input fields into a parameter by button and by drag', {
    timeout: 180_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Mapped order',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'fetch',
          name: 'Fetch order',
          type: 'action.http_request',
          config: { method: 'GET', url: `${http.baseUrl}/mapped` },
          pinned_output: { status: 200, body: { path: '/pinned', items: [{ sku: 'A-1' }] } },
        },
        {
          id: 'shape',
          name: 'Shape',
          type: 'action.transform',
          config: { assignments: [{ key: 'value', value: 'old' }] },
        },
      ],
      edges: [{ source: 'fetch', target: 'shape' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.id as string;
    const page = await context.newPage();
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'shape').waitFor();
    await node(page, 'shape').focus();
    await page.keyboard.press('Enter');
    const view = page.getByRole('dialog', { name: 'Shape' });
    await view.waitFor();
    // The input is the pinned output of the step before: no run needed.
    await view.getByText('Fetch order · pinned').waitFor();
    const value = view.locator('#field-config-assignments-0-value');
    await value.fill('');
    await view.getByRole('button', { name: 'Insert {{ nodes.fetch.body.path }}' }).click();
    await expect.poll(() => value.inputValue(), POLL).toBe('{{ nodes.fetch.body.path }}');
    await value.fill('sku: ');
    await value.press('Tab');
    await view.locator('li', { hasText: 'body.items[0].sku' }).dragTo(value);
    await expect.poll(() => value.inputValue(), POLL).toBe('sku: {{ nodes.fetch.body.items[0].sku }}');
    await expectAccessible(page, 'step view');
    await screenshot(page, 'step-view-wide-light');
    await page.keyboard.press('Control+s');
    await page.getByText(/Saved as version \d+/).waitFor();
    const saved = await api('GET', `/workflows/${workflowId}`);
    expect(saved.body.nodes[1].config.assignments[0].value).toBe('sku: {{ nodes.fetch.body.items[0].sku }}');
    // Run this step from the output pane: its output shows there; the pinned HTTP step never called out.
    await view.getByRole('button', { name: 'Run this step' }).click();
    const ran = await nthRun(api, workflowId, 1);
    expect(stepOf(ran, 'shape')?.output).toEqual({ value: 'sku: A-1' });
    await expect.poll(() => view.locator('.pane').nth(2).textContent(), POLL).toContain('sku: A-1');
    expect(http.byPath('/mapped')).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => view.count(), POLL).toBe(0);

    for (const [width, dark] of [
      ['wide', true],
      ['narrow', false],
      ['narrow', true],
    ] as const) {
      const variant = await signedIn({ width, dark });
      const other = await variant.newPage();
      await other.goto(`/workflows/${workflowId}/edit`);
      await select(other, 'shape');
      await other.getByRole('button', { name: 'Open step view' }).click();
      await other.getByRole('dialog', { name: 'Shape' }).getByText('Fetch order').first().waitFor();
      await expectAccessible(other, `step view ${width} ${dark ? 'dark' : 'light'}`);
      await screenshot(other, `step-view-${width}-${dark ? 'dark' : 'light'}`);
      await variant.close();
    }
    await context.close();
  });

  it('debugs a past execution in the editor: its outputs become pins, and a test run calls nothing pinned', {
    timeout: 120_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Refund desk',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'lookup',
          name: 'Look up the refund',
          type: 'action.http_request',
          config: { method: 'GET', url: `${http.baseUrl}/refund` },
        },
        {
          id: 'decide',
          name: 'Decide',
          type: 'action.transform',
          config: { assignments: [{ key: 'verdict', value: 'checked {{nodes.lookup.body.path}}' }] },
        },
      ],
      edges: [{ source: 'lookup', target: 'decide' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const workflowId = created.body.id as string;
    const started = await api('POST', `/workflows/${workflowId}/execute`, { input: { refund: 'R-9' } });
    const productionId = started.body.execution_id as string;
    await expect
      .poll(async () => (await api('GET', `/executions/${productionId}`)).body.status, POLL)
      .toBe('success');
    expect(http.byPath('/refund')).toBe(1);

    // From the execution's page, by keyboard: the link opens the editor with the run's data pinned.
    const page = await context.newPage();
    await page.goto(`/executions/${productionId}`);
    const debug = page.getByRole('link', { name: 'Debug in editor' });
    await debug.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/workflows/${workflowId}/edit?debug=${productionId}`);
    await page.getByText('Pinned the outputs of 1 step that calls out').waitFor();
    // Only the step that calls out is pinned; the computed one runs again, so a change to it shows.
    expect(await node(page, 'decide').getAttribute('class')).not.toContain('step-pinned');
    await expect.poll(() => node(page, 'lookup').getAttribute('class'), POLL).toContain('step-pinned');
    await expectAccessible(page, 'debug in editor');
    await screenshot(page, 'debug-in-editor-wide-light');

    // A test run now uses the pins: the refund service is not called again.
    await page.getByRole('button', { name: 'Test run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Run' }).click();
    await expect
      .poll(async () => {
        const list = await api('GET', `/executions?workflow_id=${workflowId}&mode=test`);
        return list.body.data[0]?.status;
      }, POLL)
      .toBe('success');
    const test = (await api('GET', `/executions?workflow_id=${workflowId}&mode=test`)).body.data[0];
    const ran = (await api('GET', `/executions/${test.id}`)).body as ExecutionRow;
    expect(stepOf(ran, 'lookup')?.source).toBe('pin');
    expect(stepOf(ran, 'decide')?.output).toEqual({ verdict: 'checked /refund' });
    expect(http.byPath('/refund')).toBe(1);
    await context.close();
  });

  it('previews an expression as it is typed, pipes stage by stage; autocompletes to any depth; edits it large', {
    timeout: 120_000,
  }, async () => {
    const context = await signedIn();
    const api = await apiAs(context.request);
    const created = await api('POST', '/workflows', {
      name: 'Preview desk',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'fetch',
          name: 'Fetch order',
          type: 'action.http_request',
          config: { method: 'GET', url: `${http.baseUrl}/preview` },
          pinned_output: { status: 200, body: { items: [{ sku: 'A-1', qty: 3 }] } },
        },
        {
          id: 'shape',
          name: 'Shape',
          type: 'action.transform',
          config: { assignments: [{ key: 'value', value: 'old' }] },
        },
      ],
      edges: [{ source: 'fetch', target: 'shape' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await context.newPage();
    await page.goto(`/workflows/${created.body.id}/edit`);
    await node(page, 'shape').click();
    const value = page.locator('#field-config-assignments-0-value');
    await value.fill('');
    // Autocomplete walks the pinned output: into the list, its first item, then its fields.
    await value.pressSequentially('{{ nodes.fetch.body.items.0.s');
    await page.getByRole('option', { name: /nodes\.fetch\.body\.items\.0\.sku/ }).waitFor();
    await value.press('Tab');
    await expect.poll(() => value.inputValue(), POLL).toBe('{{ nodes.fetch.body.items.0.sku }}');
    const preview = page.locator('.preview').first();
    await expect.poll(() => preview.textContent(), POLL).toContain('Preview: A-1');
    // Pipes, stage by stage, as they are typed (no save, no run).
    await value.fill('Item {{ nodes.fetch.body.items.0.sku | lower | default:none }}');
    await expect.poll(() => preview.textContent(), POLL).toContain('Preview: Item a-1');
    const stages = page.getByRole('list', { name: /How .* is computed/ });
    await expect
      .poll(() => stages.locator('li').allTextContents(), POLL)
      .toEqual(['nodes.fetch.body.items.0.sku → A-1', '| lower → a-1', '| default:none → a-1']);
    await expectAccessible(page, 'live expression preview');
    await screenshot(page, 'expression-preview-wide-light');

    // The large editor: the same field, with room; Apply writes it back.
    await page
      .getByRole('button', { name: 'Open field-config-assignments-0-value in the large expression editor' })
      .click();
    const large = page.getByRole('dialog', { name: 'Edit the expression' });
    const area = large.locator('textarea');
    await expect.poll(() => area.inputValue(), POLL).toContain('| default:none');
    await area.fill('{{ nodes.fetch.body.items.0.qty | default:0 }} pieces');
    await expect
      .poll(() => large.locator('.preview').first().textContent(), POLL)
      .toContain('Preview: 3 pieces');
    await expectAccessible(page, 'large expression editor');
    await screenshot(page, 'expression-editor-large-wide-light');
    await large.getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => value.inputValue(), POLL)
      .toBe('{{ nodes.fetch.body.items.0.qty | default:0 }} pieces');
    await page.keyboard.press('Control+s');
    await page.getByText(/Saved as version \d+/).waitFor();

    // At phone width in dark mode: the same preview under the field.
    const narrow = await signedIn({ width: 'narrow', dark: true });
    const small = await narrow.newPage();
    await small.goto(`/workflows/${created.body.id}/edit`);
    await node(small, 'shape').waitFor();
    await select(small, 'shape');
    await expect
      .poll(() => small.locator('.preview').first().textContent(), POLL)
      .toContain('Preview: 3 pieces');
    await expectAccessible(small, 'live expression preview narrow dark');
    await screenshot(small, 'expression-preview-narrow-dark');
    await narrow.close();
    await context.close();
  });
});
