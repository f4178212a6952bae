import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, inEveryVariant, newContext, screenshot } from './browser';
import { type BrowserInstallation, startBrowserInstallation } from './installation';

// A workflow's public form ({site_url}/forms/<token>) as a visitor meets it, signed out, on a phone
// and a desktop, light and dark: the fields drawn from the trigger config, errors shown next to
// their fields, and a submission that starts the workflow.

let app: BrowserInstallation;
let admin: Page;
let formPath = '';
let workflowId = '';
const POLL = { timeout: 30_000 };

async function apiCall(page: Page, method: 'GET' | 'POST', path: string, data?: unknown) {
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
  app = await startBrowserInstallation({
    organization_name: 'Sales Desk',
    name: 'Sam Sales',
    email: 'sam@sales.test',
  });
  admin = await (await app.signedIn()).newPage();
  await admin.goto('/');
  const created = await apiCall(admin, 'POST', '/workflows', {
    name: 'Demo requests',
    trigger_type: 'form',
    status: 'active',
    trigger_config: {
      title: 'Book a demo',
      description: 'Tell us about your team and we will find a time.',
      fields: [
        { name: 'name', label: 'Your name', type: 'text', required: true },
        { name: 'email', label: 'Work e-mail', type: 'email', required: true },
        { name: 'team_size', label: 'Team size', type: 'number', help: 'How many people would use it.' },
        { name: 'plan', label: 'Plan', type: 'select', options: ['Team', 'Business'], required: true },
        { name: 'notes', label: 'Anything else?', type: 'textarea' },
        { name: 'consent', label: 'You may contact me about this request', type: 'checkbox', required: true },
      ],
      submit_label: 'Request a demo',
      success_message: 'Thanks! We will write to you within a day.',
    },
    nodes: [
      {
        id: 'greet',
        type: 'action.transform',
        config: { assignments: [{ key: 'who', value: '{{trigger.name}}' }] },
      },
    ],
    edges: [],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  workflowId = created.body.id;
  formPath = new URL(created.body.form_url).pathname;
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe('the hosted form page', () => {
  it('is linked from the workflow page', async () => {
    await admin.goto(`/workflows/${workflowId}`);
    const link = admin.getByRole('link', { name: /\/forms\// });
    expect(await link.getAttribute('href')).toBe(`${app.base}${formPath}`);
  });

  it('renders signed out on a desktop and a phone, light and dark, accessibly', async () => {
    await inEveryVariant(async ({ width, dark, variant }) => {
      const page = await (await newContext(app.browser, app.base, { width, dark })).newPage();
      await page.goto(formPath);
      await page.getByRole('heading', { level: 1, name: 'Book a demo' }).waitFor();
      // Not the signed-in shell: no navigation, no sign-in redirect.
      expect(page.url()).toContain(formPath);
      expect(await page.getByRole('navigation').count()).toBe(0);
      await expectAccessible(page, `form (${variant})`);
      await screenshot(page, `form-${variant}`);
      await page.context().close();
    });
  });

  it('shows what is wrong next to each field, then takes a filled-in form and starts the workflow', async () => {
    const page = await (await newContext(app.browser, app.base, { width: 'narrow' })).newPage();
    await page.goto(formPath);
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('Work e-mail').fill('not-an-address');
    await page.getByLabel('Team size').fill('a dozen');
    await page.getByRole('button', { name: 'Request a demo' }).click();

    await page.getByText('Some answers need another look.').waitFor();
    await expect.poll(() => page.locator('#email-error').textContent(), POLL).toMatch(/must be an e-mail/);
    expect(await page.locator('#team_size-error').textContent()).toMatch(/must be a number/);
    expect(await page.locator('#plan-error').textContent()).toMatch(/Plan is required/);
    expect(await page.locator('#consent-error').textContent()).toMatch(/must be checked/);
    expect(await page.getByLabel('Work e-mail').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Work e-mail').getAttribute('aria-describedby')).toBe('email-error');
    // The first field that needs another look has the focus.
    await expect.poll(() => page.evaluate('document.activeElement?.id'), POLL).toBe('email');
    await expectAccessible(page, 'form with errors');
    await screenshot(page, 'form-errors-narrow-light');

    await page.getByLabel('Work e-mail').fill('grace@navy.example');
    await page.getByLabel('Team size').fill('12');
    await page.getByLabel('Plan').selectOption('Business');
    await page.getByLabel('Anything else?').fill('We run COBOL.\nLots of it.');
    await page.getByLabel('You may contact me about this request').check();
    await page.getByRole('button', { name: 'Request a demo' }).click();
    await page.getByRole('status').getByText('Thanks! We will write to you within a day.').waitFor();
    await screenshot(page, 'form-sent-narrow-light');
    await page.context().close();

    await expect
      .poll(
        async () => (await apiCall(admin, 'GET', `/executions?workflow_id=${workflowId}`)).body.data,
        POLL,
      )
      .toHaveLength(1);
    const { data } = (await apiCall(admin, 'GET', `/executions?workflow_id=${workflowId}`)).body;
    await expect
      .poll(async () => (await apiCall(admin, 'GET', `/executions/${data[0].id}`)).body.status, POLL)
      .toBe('success');
    const run = (await apiCall(admin, 'GET', `/executions/${data[0].id}`)).body;
    expect(run.trigger).toBe('form');
    expect(run.trigger_payload).toEqual({
      name: 'Grace Hopper',
      email: 'grace@navy.example',
      team_size: 12,
      plan: 'Business',
      notes: 'We run COBOL.\nLots of it.',
      consent: true,
    });
  });

  it("its fields are edited in the editor's trigger panel, and the page follows", async () => {
    const page = await (await app.signedIn()).newPage();
    await page.goto(`/workflows/${workflowId}/edit`);
    await page.getByLabel('Form title').waitFor();
    expect(await page.getByLabel('Form title').inputValue()).toBe('Book a demo');
    expect(await page.locator('#form-field-0-label').inputValue()).toBe('Your name');
    await page.locator('#form-field-0-label').fill('Full name');
    await page.locator('#form-field-0-label').press('Tab');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#form-field-6-label').fill('Company');
    await page.locator('#form-field-6-label').press('Tab');
    await expectAccessible(page, 'editor with a form trigger');
    await screenshot(page, 'form-trigger-editor-wide-light');
    await page.keyboard.press('Control+s');
    await page.getByText(/Saved as version \d+/).waitFor();
    const saved = (await apiCall(page, 'GET', `/workflows/${workflowId}`)).body;
    expect(saved.trigger_config.fields[0]).toMatchObject({ name: 'name', label: 'Full name' });
    expect(saved.trigger_config.fields[6]).toEqual({
      name: 'company',
      label: 'Company',
      type: 'text',
      required: false,
    });
    await page.goto(formPath);
    await page.getByLabel('Full name').waitFor();
    await page.getByLabel('Company').waitFor();
    await page.context().close();
  });

  it('says so for an unknown link', async () => {
    const page = await (await newContext(app.browser, app.base, { width: 'narrow', dark: true })).newPage();
    await page.goto(`/forms/${'x'.repeat(43)}`);
    await page.getByRole('heading', { level: 1, name: 'This form is not available' }).waitFor();
    await expectAccessible(page, 'unknown form');
    await page.context().close();
  });
});
