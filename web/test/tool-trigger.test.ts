import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, screenshot, type WIDTHS } from './browser';
import { type BrowserInstallation, pageApi, startBrowserInstallation } from './installation';

// The tool trigger in the editor (issue 23 §1): a person turns a workflow into a tool, names it,
// describes it, builds its input schema as a small form with the keyboard, reads the tools/call
// preview and saves with Ctrl+S; the saved JSON Schema is what the form showed.

let installation: BrowserInstallation | undefined;
let workflowId = '';

beforeAll(async () => {
  installation = await startBrowserInstallation({
    organization_name: 'Tools Co',
    name: 'Tia Tool',
    email: 'tia@tools.test',
  });
}, 180_000);

afterAll(async () => {
  await installation?.close();
});

const open = (options: { width?: keyof typeof WIDTHS; dark?: boolean } = {}) =>
  (installation as BrowserInstallation).openPage(options);

const api = pageApi;

/** The id of the focused element (a string expression: this file is type-checked without the DOM). */
const focused = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');
const node = (page: Page, id: string) => page.locator(`.svelte-flow__node[data-id="${id}"]`);
const pane = (page: Page) => page.locator('.svelte-flow__pane').click({ position: { x: 5, y: 5 } });

describe('the tool trigger', () => {
  it('is set up with the keyboard: name, description, arguments as a form, a call preview; Ctrl+S saves the JSON Schema', {
    timeout: 120_000,
  }, async () => {
    const page = await open();
    const created = await api(page, 'POST', '/workflows', {
      name: 'Greeter',
      trigger_type: 'manual',
      nodes: [
        {
          id: 'greet',
          type: 'action.transform',
          name: 'Greet',
          config: { assignments: [{ key: 'text', value: 'Hello' }] },
          position: { x: 0, y: 0 },
        },
      ],
      edges: [],
    });
    expect(created.status).toBe(201);
    workflowId = created.json.id;
    await page.goto(`/workflows/${workflowId}/edit`);
    await node(page, 'greet').waitFor();
    await pane(page);

    await page.locator('#trigger-type').focus();
    await page.locator('#trigger-type').selectOption('tool');
    await page.getByText('No arguments: the tool is called with').waitFor();

    await page.locator('#trigger-tool-name').click();
    await page.keyboard.type('greet_customer');
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe('trigger-tool-description');
    await page.keyboard.type('Greets a customer by name.');

    // First argument: the new row's name is selected, ready to be typed over.
    await page.getByRole('button', { name: 'Add argument' }).click();
    await expect.poll(() => focused(page)).toBe('tool-arg-name-0');
    await page.keyboard.type('customer_name');
    await page.keyboard.press('Tab'); // the type: string already
    await page.keyboard.press('Tab');
    await expect.poll(() => focused(page)).toBe('tool-arg-required-0');
    await page.keyboard.press('Space');
    await page.locator('#tool-arg-description-0').click();
    await page.keyboard.type('How to address them');
    await page.keyboard.press('Tab');

    // Second argument, an optional integer.
    await page.getByRole('button', { name: 'Add argument' }).click();
    await expect.poll(() => focused(page)).toBe('tool-arg-name-1');
    await page.keyboard.type('visits');
    await page.keyboard.press('Tab');
    await page.locator('#tool-arg-type-1').selectOption('integer');

    const preview = page.getByTestId('tool-call-preview');
    await expect
      .poll(async () => JSON.parse((await preview.textContent()) ?? '{}'))
      .toEqual({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet_customer', arguments: { customer_name: 'text', visits: 1 } },
      });

    await page.locator('#tool-arg-description-1').click();
    await page.keyboard.type('Visits so far');
    // Saved from inside the field, as a person does.
    await page.keyboard.press('Control+s');
    await page.getByText('Saved as version 2.').waitFor();

    const saved = await api(page, 'GET', `/workflows/${workflowId}`);
    expect(saved.json.trigger_type).toBe('tool');
    expect(saved.json.trigger_config).toEqual({
      name: 'greet_customer',
      description: 'Greets a customer by name.',
      input_schema: {
        type: 'object',
        properties: {
          customer_name: { type: 'string', description: 'How to address them' },
          visits: { type: 'integer', description: 'Visits so far' },
        },
        required: ['customer_name'],
      },
    });

    // After a reload the form shows the saved schema; an invalid name is refused in words.
    await page.reload();
    await node(page, 'greet').waitFor();
    await pane(page);
    // (PostgreSQL's jsonb keeps an object's keys in its own order, shorter first: rows by name.)
    const names = [
      await page.locator('#tool-arg-name-0').inputValue(),
      await page.locator('#tool-arg-name-1').inputValue(),
    ];
    expect([...names].sort()).toEqual(['customer_name', 'visits']);
    const visits = names.indexOf('visits');
    const customer = names.indexOf('customer_name');
    expect(await page.locator(`#tool-arg-type-${visits}`).inputValue()).toBe('integer');
    expect(await page.locator(`#tool-arg-required-${customer}`).isChecked()).toBe(true);
    expect(await page.locator(`#tool-arg-required-${visits}`).isChecked()).toBe(false);
    await page.locator('#trigger-tool-name').click();
    await page.locator('#trigger-tool-name').press('Control+a');
    await page.keyboard.type('Greet Customer');
    await page.keyboard.press('Control+s');
    await page
      .locator('#trigger-tool-name-error', { hasText: /must start with a lower-case letter/ })
      .waitFor();
    expect(await page.locator('#trigger-tool-name').getAttribute('aria-invalid')).toBe('true');
    // The workflow's page says how it is called (another tab: the editor holds an unsaved edit).
    const view = await page.context().newPage();
    await view.goto(`/workflows/${workflowId}`);
    await view
      .locator('.tool-note', {
        hasText: /call it as greet_customer once it is active; the MCP server is http/,
      })
      .waitFor();
    await page.context().close();
  });

  it('looks right at 1280 and 390 px, light and dark, and passes axe', { timeout: 120_000 }, async () => {
    for (const width of ['wide', 'narrow'] as const) {
      for (const dark of [false, true]) {
        const page = await open({ width, dark });
        await page.goto(`/workflows/${workflowId}/edit`);
        await node(page, 'greet').waitFor();
        // Nothing selected: the side panel shows the trigger (below the canvas on a phone).
        await page.locator('#trigger-tool-name').waitFor();
        // The form's end and the call preview in view (the side panel scrolls on its own).
        await page.getByTestId('tool-call-preview').scrollIntoViewIfNeeded();
        await expectAccessible(page, `tool trigger ${width} ${dark ? 'dark' : 'light'}`);
        await screenshot(page, `editor-tool-trigger-${width}-${dark ? 'dark' : 'light'}`);
        await page.context().close();
      }
    }
  });
});
