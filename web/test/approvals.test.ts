import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTP_PASSWORD, SMTP_USER, type SmtpFake, startSmtpFake } from '../../temporal/test/template-fakes';
import { expectAccessible, inEveryVariant, newContext, screenshot } from './browser';
import { type BrowserInstallation, startBrowserInstallation } from './installation';

// The Approvals inbox as a person uses it: executions wait there, an editor approves one with a
// comment and rejects another, the execution goes on; a viewer sees what waits but cannot decide.

let app: BrowserInstallation;
let smtp: SmtpFake;
let workflowId = '';
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

async function startRefund(page: Page, order: string, amount: number) {
  const started = await apiCall(page, 'POST', `/workflows/${workflowId}/execute`, {
    input: { order, amount },
  });
  expect(started.status).toBe(202);
  const id = started.body.execution_id as string;
  await expect
    .poll(async () => (await apiCall(page, 'GET', `/executions/${id}`)).body.status, POLL)
    .toBe('waiting');
  return id;
}

beforeAll(async () => {
  smtp = await startSmtpFake();
  app = await startBrowserInstallation(
    { organization_name: 'Refund Desk', name: 'Erin Editor', email: 'erin@refunds.test' },
    // The e-mail module's SMTP server is the local fake.
    { SSRF_ALLOWLIST: '127.0.0.0/8' },
  );
}, 180_000);

afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('the Approvals inbox', () => {
  let orders: Record<string, string> = {};

  it('lists what waits, in both themes and widths, accessibly', async () => {
    const page = await (await app.signedIn()).newPage();
    await page.goto('/');
    const created = await apiCall(page, 'POST', '/workflows', {
      name: 'Refund requests',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'ask_finance',
          type: 'action.approval',
          config: {
            title: 'Refund {{trigger.amount}} EUR for order {{trigger.order}}?',
            message: 'The customer says the parcel arrived damaged.\nPhotos are attached to the ticket.',
            timeout: '2d',
          },
        },
        { id: 'refund', type: 'action.transform', config: { assignments: [{ key: 'ok', value: 'yes' }] } },
        { id: 'decline', type: 'action.transform', config: { assignments: [{ key: 'ok', value: 'no' }] } },
      ],
      edges: [
        { source: 'ask_finance', target: 'refund', source_handle: 'approved' },
        { source: 'ask_finance', target: 'decline', source_handle: 'rejected' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    workflowId = created.body.id;
    orders = { a7: await startRefund(page, 'A-7', 40), b9: await startRefund(page, 'B-9', 1200) };

    // A person finds it through the navigation.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Refund 40 EUR for order A-7?' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Refund 1200 EUR for order B-9?' }).waitFor();
    const card = page.getByRole('listitem').filter({ hasText: 'order A-7' });
    expect(await card.textContent()).toMatch(/Refund requests.*asked (now|\d+ seconds? ago)/s);
    expect(await card.textContent()).toContain('deadline in 2 days');
    await page.context().close();

    await inEveryVariant(async ({ width, dark, variant }) => {
      const shot = await (await app.signedIn({ width, dark })).newPage();
      await shot.goto('/approvals');
      await shot.getByRole('heading', { level: 2, name: 'Refund 40 EUR for order A-7?' }).waitFor();
      await expectAccessible(shot, `approvals (${variant})`);
      await screenshot(shot, `approvals-${variant}`);
      await shot.context().close();
    });
  });

  it('approving with a comment and rejecting go on with the executions, and leave the inbox', async () => {
    const page = await (await app.signedIn()).newPage();
    await page.goto('/approvals');
    const a7 = page.getByRole('listitem').filter({ hasText: 'order A-7' });
    await a7.getByLabel('Comment').fill('Damaged in transit: refund it.');
    await a7.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved:').waitFor();
    await expect.poll(() => page.getByRole('heading', { name: /order A-7/ }).count(), POLL).toBe(0);

    const b9 = page.getByRole('listitem').filter({ hasText: 'order B-9' });
    await b9.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /order B-9/ }).count(), POLL).toBe(0);
    await page.getByText('Nothing waits for a decision').waitFor();

    await expect
      .poll(async () => (await apiCall(page, 'GET', `/executions/${orders.a7}`)).body.status, POLL)
      .toBe('success');
    const a7Run = (await apiCall(page, 'GET', `/executions/${orders.a7}`)).body;
    const ask = a7Run.steps.find((s: any) => s.node_id === 'ask_finance');
    expect(ask.output).toMatchObject({
      decision: 'approve',
      decided_by: 'erin@refunds.test',
      comment: 'Damaged in transit: refund it.',
    });
    await expect
      .poll(async () => {
        const run = (await apiCall(page, 'GET', `/executions/${orders.b9}`)).body;
        return run.steps.find((s: any) => s.node_id === 'decline')?.status;
      }, POLL)
      .toBe('completed');

    // The decided ones are under their own filter, with who decided and the comment.
    await page.getByLabel('Show').selectOption('approved');
    await page.getByRole('heading', { level: 2, name: 'Refund 40 EUR for order A-7?' }).waitFor();
    await page.getByText('Damaged in transit: refund it.').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await screenshot(page, 'approvals-decided-wide-light');
    await page.context().close();
  });

  it('a viewer sees what waits but is offered no decision', async () => {
    const admin = await (await app.signedIn()).newPage();
    await admin.goto('/');
    await startRefund(admin, 'C-3', 15);
    const invited = await apiCall(admin, 'POST', '/invitations', {
      email: 'vic@refunds.test',
      role: 'viewer',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    await admin.context().close();

    const viewer = await (await newContext(app.browser, app.base, { width: 'narrow' })).newPage();
    await viewer.goto(new URL(invited.body.invite_url).pathname);
    await viewer.getByLabel('Your name').fill('Vic Viewer');
    await viewer.getByLabel('Password', { exact: true }).fill('viewer password 1');
    await viewer.getByRole('button', { name: 'Join' }).click();
    await viewer.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await viewer.goto('/approvals');
    await viewer.getByRole('heading', { level: 2, name: 'Refund 15 EUR for order C-3?' }).waitFor();
    await viewer.getByText('deciding needs the editor or admin role').waitFor();
    expect(await viewer.getByRole('button', { name: /Approve|Reject/ }).count()).toBe(0);
    await expectAccessible(viewer, 'approvals as a viewer');
    await screenshot(viewer, 'approvals-viewer-narrow-light');
    await viewer.context().close();
  });
});

describe('the e-mailed approval link', () => {
  it('opens a confirm page (light and dark, phone width) that decides only when a button is pressed', async () => {
    const admin = await (await app.signedIn()).newPage();
    await admin.goto('/');
    const module = await apiCall(admin, 'PUT', '/modules/email', {
      host: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      allow_insecure: true,
      username: SMTP_USER,
      password: SMTP_PASSWORD,
      from_email: 'automation@refunds.test',
    });
    expect(module.status, JSON.stringify(module.body)).toBe(200);
    const created = await apiCall(admin, 'POST', '/workflows', {
      name: 'Refunds by mail',
      trigger_type: 'manual',
      status: 'active',
      nodes: [
        {
          id: 'ask_finance',
          type: 'action.approval',
          config: {
            title: 'Refund {{trigger.amount}} EUR for order {{trigger.order}}?',
            message: 'The customer says the parcel arrived damaged.',
            timeout: '2d',
            notify_email: 'finance@refunds.test',
          },
        },
      ],
      edges: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = await apiCall(admin, 'POST', `/workflows/${created.body.id}/execute`, {
      input: { order: 'M-1', amount: 75 },
    });
    const executionId = started.body.execution_id as string;
    await expect
      .poll(() => smtp.received.some((m) => m.envelope.includes('finance@refunds.test')), POLL)
      .toBe(true);
    const mail = smtp.received.find((m) => m.envelope.includes('finance@refunds.test'));
    const link = /(http:\/\/\S+\/api\/approval-links\/\S+)/.exec(String(mail?.mail.text))?.[1] as string;
    expect(link.startsWith(app.base)).toBe(true);

    for (const dark of [false, true]) {
      const page = await (await newContext(app.browser, app.base, { width: 'narrow', dark })).newPage();
      await page.goto(link);
      await page.getByRole('heading', { level: 1, name: 'Refund 75 EUR for order M-1?' }).waitFor();
      await expectAccessible(page, `approval link (${dark ? 'dark' : 'light'})`);
      await screenshot(page, `approval-link-narrow-${dark ? 'dark' : 'light'}`);
      await page.context().close();
    }
    // Opening it (twice, as a mail scanner and then the person) decided nothing.
    const run = await apiCall(admin, 'GET', `/executions/${executionId}`);
    expect(run.body.status).toBe('waiting');

    const page = await (await newContext(app.browser, app.base, { width: 'wide' })).newPage();
    await page.goto(link);
    await page.getByLabel('Comment (optional)').fill('Photos show no damage.');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('This approval was rejected').waitFor();
    expect(await page.textContent('body')).toContain('by finance@refunds.test');
    await screenshot(page, 'approval-link-decided-wide-light');
    await page.context().close();
    await expect
      .poll(async () => (await apiCall(admin, 'GET', `/executions/${executionId}`)).body.status, POLL)
      .toBe('success');
    const done = (await apiCall(admin, 'GET', `/executions/${executionId}`)).body;
    expect(done.steps[0].output).toMatchObject({
      decision: 'reject',
      decided_by: 'finance@refunds.test',
      via: 'email',
      comment: 'Photos show no damage.',
    });
    await admin.context().close();
  });
});
