import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@weft/testing';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CountingServer,
  chain,
  createStack,
  httpPost,
  type ServiceProcess,
  type Stack,
  spawnService,
  startCountingServer,
  transform,
} from '../../temporal/test/support';
import { expectAccessible, launchBrowser, newContext, screenshot } from './browser';

// The web app end to end, as an operator meets it after `./weft up`: the real combined API+worker
// process serving the built SvelteKit app on one origin, a real PostgreSQL and Temporal, Debian's
// chromium. The tests run in order and share one installation (the wizard runs once).

let stack: Stack;
let http: CountingServer;
let server: ServiceProcess;
let browser: Browser;
let base = '';
const ADMIN = {
  org: 'Acme Ops',
  name: 'Ada Admin',
  email: 'ada@acme.test',
  password: 'correct horse battery staple',
};
let totpSecret = '';
let recoveryCodes: string[] = [];
/** expect.poll waits 1 s by default: too short for a busy machine. Bounded by the test's timeout. */
const POLL = { timeout: 30_000 };

beforeAll(async () => {
  [stack, http] = await Promise.all([createStack(), startCountingServer(() => 20)]);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawnService('api', {
    ...stack.serviceEnv,
    RUN_WORKER: 'true',
    PORT: String(port),
    APP_URL: base,
    TEMPORAL_UI_URL: 'http://localhost:8233',
    TRUST_PROXY_HOPS: '1',
  });
  [browser] = await Promise.all([launchBrowser(), server.ready]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill();
  await stack?.close();
  http?.server.close();
});

const code = (steps = 0) =>
  generate({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

let adminState: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>> | undefined;

/**
 * A page signed in as the admin. The first call signs in with a TOTP code (the next time step's:
 * the current one was spent by the wizard test, and a code is never accepted twice); later calls
 * reuse that session in a fresh browser context.
 */
async function adminPage(options: { width?: 'wide' | 'narrow'; dark?: boolean } = {}): Promise<Page> {
  if (!adminState) {
    const context = await newContext(browser, base);
    const page = await context.newPage();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByLabel('Code').fill(await code(1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    adminState = await context.storageState();
    await context.close();
  }
  const context = await browser.newContext({
    baseURL: base,
    storageState: adminState,
    viewport: options.width === 'narrow' ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    colorScheme: options.dark ? 'dark' : 'light',
  });
  // Generous: pages render through the whole stack, slow on a busy machine.
  context.setDefaultTimeout(30_000);
  return context.newPage();
}

describe('first start', () => {
  it('the wizard creates the organization and admin, then is closed for good', async () => {
    const context = await newContext(browser, base);
    const page = await context.newPage();
    await page.goto('/');
    await page.waitForURL('**/setup');
    await expectAccessible(page, 'setup');
    await screenshot(page, 'setup-wide-light');
    // Bad input is shown next to its field and creates nothing.
    await page.getByLabel('Organization name').fill(ADMIN.org);
    await page.getByLabel('Your name').fill(ADMIN.name);
    await page.getByLabel('E-mail').fill('not an e-mail');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: /Create organization/ }).click();
    await expect.poll(() => page.locator('#email-error').textContent(), POLL).toMatch(/valid e-mail/);
    await expect.poll(() => page.locator('#password-error').textContent(), POLL).toMatch(/at least 8/);
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: /Create organization/ }).click();
    await page.waitForURL('**/profile?welcome=1');

    // Two-factor from the profile page: QR code, confirm, 8 recovery codes shown once.
    await page.getByRole('button', { name: 'Set up two-factor' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    totpSecret = (await page.locator('.steps code').first().textContent()) ?? '';
    expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible(page, 'profile (2FA set-up)');
    await page.getByLabel('Enter the 6-digit code it shows').fill(await code());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Save these recovery codes now').waitFor();
    recoveryCodes = await page.locator('.codes code').allTextContents();
    expect(recoveryCodes).toHaveLength(8);
    await screenshot(page, 'profile-wide-light');

    // The wizard is closed: the page says so, the API refuses and nothing more is created.
    const again = await context.newPage();
    await again.goto('/setup');
    await again.getByText('Weft is already set up').waitFor();
    const post = await again.request.post('/api/v1/auth/setup', {
      data: { organization_name: 'Second', name: 'Eve', email: 'eve@x.test', password: 'another password' },
    });
    expect(post.status()).toBe(409);
    const [users] = await stack.db.admin`select count(*)::int as n from users`;
    expect(users?.n).toBe(1);
    await context.close();
  });
});

describe('signing in', () => {
  it('with two-factor, a recovery code once, and never to an outside ?next=', async () => {
    const context = await newContext(browser, base);
    const page = await context.newPage();
    await page.goto('/login?next=//evil.example/steal');
    await expectAccessible(page, 'login');
    await screenshot(page, 'login-wide-light');
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    const before = (await context.cookies()).find((c) => c.name === 'weft_session')?.value;
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor check' }).waitFor();
    await expectAccessible(page, 'login (two-factor step)');
    const half = (await context.cookies()).find((c) => c.name === 'weft_session');
    expect(half?.httpOnly).toBe(true);
    expect(half?.sameSite).toBe('Lax');
    expect(half?.value).not.toBe(before);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] as string);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(new URL(page.url()).origin).toBe(base);
    expect(new URL(page.url()).pathname).toBe('/');
    const full = (await context.cookies()).find((c) => c.name === 'weft_session');
    expect(full?.value).not.toBe(half?.value); // rotated at two-factor completion
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');

    // The same recovery code again: refused.
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0] as string);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page
      .locator('#code-error')
      .getByText(/not valid/)
      .waitFor();
    await context.close();
  });

  it('shows one message for a wrong password and stops the 6th attempt in a minute', {
    timeout: 120_000,
  }, async () => {
    // The limit counts per client in fixed one-minute windows (from the minute's start): the six
    // sign-ins must fall in one. Each try is a client of its own (newContext: its own
    // X-Forwarded-For, so its own count); a try that reached the 6th sign-in in another minute
    // than its first, or with under 10 s of the minute left, is made again from the start in
    // the next minute. That waits only near a minute's end, not for the first 20 s of one.
    const minute = () => Math.floor(Date.now() / 60_000);
    for (let attempt = 1; ; attempt++) {
      // A try begun in a minute's last 10 s would not end in it: it begins in the next one.
      while (new Date().getSeconds() >= 50) await new Promise((r) => setTimeout(r, 250));
      const context = await newContext(browser, base);
      const page = await context.newPage();
      const first = minute();
      // A wrong password and an unknown address answer the same message.
      for (const email of [ADMIN.email, 'nobody@acme.test', ADMIN.email, 'nobody@acme.test', ADMIN.email]) {
        await signIn(page, email, 'wrong password');
        await page.getByRole('alert').getByText('The e-mail or password is incorrect.').waitFor();
      }
      await expectAccessible(page, 'login (error)');
      const late = new Date().getSeconds() >= 50;
      if ((minute() !== first || late) && attempt < 3) {
        await context.close();
        continue;
      }
      await signIn(page, ADMIN.email, ADMIN.password);
      await page
        .getByRole('alert')
        .getByText(/Too many attempts/)
        .waitFor();
      const res = await page.request.post('/api/v1/auth/login', {
        data: { email: ADMIN.email, password: ADMIN.password },
      });
      expect(res.status()).toBe(429);
      expect(Number(res.headers()['retry-after'])).toBeGreaterThan(0);
      await context.close();
      return;
    }
  });
});

/** Text an attacker would like to run: every page must show it as text. */
const XSS = '<img src=x onerror="window.__xss=1">';

async function importWorkflow(page: Page, definition: Record<string, unknown>) {
  await page.goto('/workflows');
  await page.getByRole('heading', { name: 'Workflows' }).waitFor();
  await page.locator('#import-file').setInputFiles({
    name: 'workflow.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ weft_workflow: 1, ...definition })),
  });
  await page.waitForURL(/\/workflows\/[0-9a-f-]{36}$/);
  return page.url().split('/').at(-1) as string;
}

describe('workflows and executions', () => {
  it('imports a workflow, runs it with input and watches the execution finish; names and outputs stay text', async () => {
    const page = await adminPage();
    const id = await importWorkflow(page, {
      name: `Greeter ${XSS}`,
      trigger_type: 'manual',
      nodes: [{ ...transform('greet', { greeting: 'Hello {{trigger.name}}' }), name: `Say hi ${XSS}` }],
      edges: [],
    });
    await page.getByRole('heading', { name: `Greeter ${XSS}` }).waitFor();
    // The step is drawn on the canvas (as text), with the list of steps under it.
    await page.locator('.svelte-flow__node', { hasText: `Say hi ${XSS}` }).waitFor();
    expect(await page.locator('.svelte-flow__node-step').count()).toBe(1);
    await expectAccessible(page, 'workflow detail');
    await page.getByLabel('Input (JSON)').fill('not json');
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByText(/Not valid JSON/).waitFor();
    await page.getByLabel('Input (JSON)').fill(JSON.stringify({ name: XSS }));
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/executions\/[0-9a-f-]{36}$/);
    await page.locator('.badge', { hasText: 'success' }).first().waitFor({ timeout: 30_000 });
    await page.locator('details').evaluateAll((all) => {
      for (const d of all) d.setAttribute('open', '');
    });
    await page.getByText('Hello <img src=x onerror=', { exact: false }).first().waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    await expectAccessible(page, 'execution detail');
    const [row] = await stack.db.admin`select count(*)::int as n from executions where workflow_id = ${id}`;
    expect(row?.n).toBe(1);
    await page.context().close();
  });

  it('retries a failed execution from the failed step once the cause is fixed', {
    timeout: 60_000,
  }, async () => {
    const page = await adminPage();
    http.failing.add('/flaky');
    await importWorkflow(page, {
      name: 'Flaky call',
      trigger_type: 'manual',
      nodes: [
        transform('first', { a: '1' }),
        httpPost('call', `${http.baseUrl}/flaky`, { on_failure: 'abort' }),
      ],
      edges: chain('first', 'call'),
    });
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/executions\//);
    await page.getByRole('heading', { name: 'Flaky call' }).waitFor();
    const failed = page.locator('header .badge', { hasText: 'failed' });
    await failed.waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
      const rows = await stack.db
        .admin`select status, error from executions where workflow_name = 'Flaky call'`;
      throw new Error(
        `${String(error)}\nexecutions: ${JSON.stringify(rows)}; calls: ${http.byPath('/flaky')}`,
      );
    });
    await screenshot(page, 'execution-failed-wide-light');
    http.failing.delete('/flaky');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText(/Retrying from the failed step/).waitFor();
    await page.locator('header .badge', { hasText: 'success' }).waitFor({ timeout: 30_000 });
    // Retry is offered only for a failed execution, Cancel only while it can still change.
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    expect(http.byPath('/flaky')).toBe(2);
    await page.context().close();
  });

  it('activating a workflow shows up as a field-level diff in the audit log', async () => {
    const page = await adminPage();
    await page.goto('/workflows');
    await page.getByRole('button', { name: 'Activate Flaky call' }).click();
    await page.getByText('Flaky call is now active.').waitFor();
    await page.goto('/audit-logs');
    const record = page.locator('.records li', { hasText: 'updated' }).first();
    await record.waitFor();
    const status = record.locator('tr', { hasText: 'status' });
    expect(await status.locator('.before').textContent()).toBe('draft');
    expect(await status.locator('.after').textContent()).toBe('active');
    await expectAccessible(page, 'audit log');
    await page.context().close();
  });
});

describe('version history', () => {
  it('lists every saved version, diffs two and restores one as a new version', async () => {
    const page = await adminPage();
    await page.goto('/workflows');
    await page.getByRole('link', { name: 'Flaky call', exact: true }).click();
    const history = page.getByRole('region', { name: 'History' });
    await history.locator('li', { hasText: 'v2' }).getByText('current').waitFor();
    await history.getByRole('button', { name: 'Restore version 1' }).waitFor();
    await history.getByLabel('Compare from version').selectOption('1');
    await history.getByLabel('Compare to version').selectOption('2');
    await history.getByRole('button', { name: 'Compare' }).click();
    const status = history.locator('tr', { hasText: 'status' });
    expect(await status.locator('.before').textContent()).toBe('draft');
    expect(await status.locator('.after').textContent()).toBe('active');
    await expectAccessible(page, 'workflow history');
    await history.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Version 1 restored as version 3.').waitFor();
    await page.locator('header .badge', { hasText: 'draft' }).waitFor();
    const [row] = await stack.db.admin`select version, status from workflows where name = 'Flaky call'`;
    expect(row).toMatchObject({ version: 3, status: 'draft' });
    await page.context().close();
  });
});

describe('API keys', () => {
  it('creates a key shown once with a copy button, and revokes it', async () => {
    const page = await adminPage();
    await page.goto('/api-keys');
    await page.getByLabel('Name', { exact: true }).fill('billing sync');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.key code').textContent()) ?? '';
    expect(key).toMatch(/^weft_/);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    const ok = await page.request.get('/api/v1/workflows', { headers: { 'X-Api-Key': key } });
    expect(ok.status()).toBe(200);
    await expectAccessible(page, 'API keys');
    await page.getByRole('button', { name: 'Revoke billing sync' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page
      .locator('tr', { hasText: 'billing sync' })
      .getByText(/revoked/)
      .waitFor();
    const refused = await page.request.get('/api/v1/workflows', { headers: { 'X-Api-Key': key } });
    expect(refused.status()).toBe(401);
    await page.context().close();
  });
});

describe('outbound webhooks', () => {
  it('creates a webhook (secret shown once), sends a test event and shows its delivery', {
    timeout: 60_000,
  }, async () => {
    const page = await adminPage();
    await page.goto('/webhooks');
    await page.getByLabel('URL').fill('not a url');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('#hook-url-error').waitFor();
    await page.getByLabel('URL').fill(`${http.baseUrl}/hook`);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    expect(await page.locator('.secret code').textContent()).toMatch(/^whsec_/);
    await page.getByRole('link', { name: `${http.baseUrl}/hook` }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/webhook.test event is on its way/).waitFor();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('details', { hasText: 'webhook.test' }).locator('.badge').textContent();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe('succeeded');
    expect(http.byPath('/hook')).toBe(1);
    await expectAccessible(page, 'webhook detail');
    await screenshot(page, 'webhook-wide-light');
    await page.context().close();
  });
});

describe('people and limits', () => {
  it('an invited viewer joins, reads, and can change nothing', async () => {
    const admin = await adminPage();
    await admin.goto('/settings');
    await admin.getByLabel('E-mail').fill('vic@acme.test');
    await admin.getByLabel('Role', { exact: true }).selectOption('viewer');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const link = (await admin.locator('.link code').textContent()) ?? '';
    expect(link).toContain('/invite/');
    await expectAccessible(admin, 'organization settings');

    const context = await newContext(browser, base);
    const viewer = await context.newPage();
    await viewer.goto(new URL(link).pathname);
    await viewer.getByText(/invited as/).waitFor();
    await viewer.getByLabel('Your name').fill('Vic Viewer');
    await viewer.getByLabel('Password', { exact: true }).fill('viewer password 1');
    await viewer.getByRole('button', { name: 'Join' }).click();
    await viewer.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const nav = await viewer.getByRole('navigation', { name: 'Main' }).textContent();
    expect(nav).not.toContain('API keys');
    expect(nav).not.toContain('Audit log');
    await viewer.goto('/workflows');
    await viewer.getByRole('link', { name: 'Flaky call', exact: true }).waitFor();
    expect(await viewer.getByRole('button', { name: /Delete|Activate|Deactivate|Import/ }).count()).toBe(0);
    // The API refuses what the page does not offer, CSRF token and all.
    const csrf = await viewer.evaluate(
      async () => ((await (await fetch('/api/v1/me')).json()) as { csrf_token: string }).csrf_token,
    );
    const refused = await viewer.request.post('/api/v1/workflows', {
      headers: { 'X-CSRF-Token': csrf },
      data: { name: 'nope', trigger_type: 'manual' },
    });
    expect(refused.status()).toBe(403);
    // Signing in without two-factor: straight to the dashboard.
    await viewer.getByRole('button', { name: 'Sign out' }).click();
    await viewer.waitForURL('**/login');
    await signIn(viewer, 'vic@acme.test', 'viewer password 1');
    await viewer.getByRole('heading', { name: 'Dashboard' }).waitFor();
    // The link was single-use.
    const again = await (await newContext(browser, base)).newPage();
    await again.goto(new URL(link).pathname);
    await again
      .getByRole('alert')
      .getByText(/invalid, used or expired/)
      .waitFor();
    // No e-mail module here: the admin hands vic a reset link from the members list.
    await admin.reload();
    await admin.getByRole('button', { name: 'Reset link for vic@acme.test' }).click();
    const resetLink = new URL(
      (await admin
        .getByRole('status')
        .filter({ hasText: 'Reset link for vic@acme.test' })
        .locator('code')
        .textContent()) ?? '',
    );
    expect(resetLink.pathname).toBe('/reset-password');
    await again.goto(`${resetLink.pathname}${resetLink.search}`);
    await again.getByLabel('New password').fill('viewer password 2');
    await again.getByRole('button', { name: 'Change password' }).click();
    await again.getByRole('link', { name: 'Sign in' }).waitFor();
    await context.close();
    await admin.context().close();
  });

  it('refuses a state-changing call without the CSRF token, and never shows another organization', async () => {
    const page = await adminPage();
    const before = await stack.db.admin`select count(*)::int as n from workflows`;
    const noToken = await page.request.post('/api/v1/workflows', {
      data: { name: 'csrf', trigger_type: 'manual' },
    });
    expect(noToken.status()).toBe(403);
    const after = await stack.db.admin`select count(*)::int as n from workflows`;
    expect(after[0]?.n).toBe(before[0]?.n);

    const other = await stack.createOrg('Globex');
    const res = await stack.request('POST', '/api/v1/workflows', {
      key: other.key,
      body: { name: 'Globex secret plan', trigger_type: 'manual' },
    });
    const theirs = ((await res.json()) as { id: string }).id;
    await page.goto(`/workflows/${theirs}`);
    await page
      .getByRole('alert')
      .getByText(/not found/i)
      .waitFor();
    await page.goto('/workflows');
    await page.getByRole('link', { name: 'Flaky call', exact: true }).waitFor();
    expect(await page.content()).not.toContain('Globex secret plan');
    await page.context().close();
  });
});

/** A local stand-in for hCaptcha: its widget script (a button that yields a token) and siteverify. */
async function startFakeCaptcha(): Promise<{ server: Server; baseUrl: string; verified: string[] }> {
  const verified: string[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api.js')) {
      res.writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' });
      res.end(`window.hcaptcha = { render(el, o) {
        const b = document.createElement('button'); b.type = 'button'; b.textContent = 'I am human';
        b.onclick = () => { b.textContent = 'Verified'; o.callback('good-token'); }; el.append(b); return 'w1'; } };`);
      return;
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const params = new URLSearchParams(body);
      verified.push(params.get('response') ?? '');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          success: params.get('response') === 'good-token' && params.get('secret') === 'hc-secret',
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, verified };
}

describe('captcha', () => {
  it('is off by default: no widget on the sign-in forms', async () => {
    const page = await (await newContext(browser, base)).newPage();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.locator('.captcha').count()).toBe(0);
    await page.context().close();
  });

  it('when on, protects login and forgot password; a failed check is shown as a validation error', {
    timeout: 60_000,
  }, async () => {
    const fake = await startFakeCaptcha();
    const port = await freePort();
    const captchaBase = `http://127.0.0.1:${port}`;
    const guarded = spawnService('api', {
      ...stack.serviceEnv,
      PORT: String(port),
      APP_URL: captchaBase,
      TRUST_PROXY_HOPS: '1',
      CAPTCHA_ENABLED: 'true',
      CAPTCHA_PROVIDER: 'hcaptcha',
      HCAPTCHA_SITE_KEY: 'hc-site',
      HCAPTCHA_SECRET: 'hc-secret',
      CAPTCHA_VERIFY_URL: `${fake.baseUrl}/siteverify`,
      CAPTCHA_SCRIPT_URL: `${fake.baseUrl}/api.js`,
    });
    try {
      await guarded.ready;
      const page = await (await newContext(browser, captchaBase)).newPage();
      await page.goto('/login');
      await page.getByRole('button', { name: 'I am human' }).waitFor();
      await expectAccessible(page, 'login with captcha');
      await screenshot(page, 'login-captcha-wide-light');
      await page.getByLabel('E-mail').fill(ADMIN.email);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .getByText(/captcha check failed/)
        .waitFor();
      await page.getByRole('button', { name: 'I am human' }).click();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Two-factor check' }).waitFor();
      expect(fake.verified).toContain('good-token');

      await page.goto('/forgot-password');
      await page.getByLabel('E-mail').fill(ADMIN.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page
        .getByRole('alert')
        .getByText(/captcha check failed/)
        .waitFor();
      await page.getByRole('button', { name: 'I am human' }).click();
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByText(/a reset link is on its way/).waitFor();
      await page.context().close();
    } finally {
      await guarded.kill();
      fake.server.close();
    }
  });
});

/** Every main page, at 1280 and 390 px, light and dark: it renders, passes axe, and is saved as a screenshot. */
const PAGES: { path: string | (() => Promise<string>); name: string; heading: string | RegExp }[] = [
  { path: '/', name: 'dashboard', heading: 'Dashboard' },
  { path: '/workflows', name: 'workflows', heading: 'Workflows' },
  { path: async () => `/workflows/${await firstId('workflows')}`, name: 'workflow', heading: /Greeter/ },
  { path: '/executions', name: 'executions', heading: 'Executions' },
  {
    path: async () => `/executions/${await firstId('executions')}`,
    name: 'execution',
    heading: /Greeter|Flaky/,
  },
  { path: '/approvals', name: 'approvals', heading: 'Approvals' },
  { path: '/credentials', name: 'credentials', heading: 'Credentials' },
  { path: '/modules', name: 'modules', heading: 'Modules' },
  { path: '/conversations', name: 'conversations', heading: 'Conversations' },
  { path: '/webhooks', name: 'webhooks', heading: 'Outbound webhooks' },
  { path: '/api-keys', name: 'api-keys', heading: 'API keys' },
  { path: '/audit-logs', name: 'audit-logs', heading: 'Audit log' },
  { path: '/settings', name: 'settings', heading: 'Organization' },
  { path: '/profile', name: 'profile', heading: 'Your account' },
];

async function firstId(table: 'workflows' | 'executions'): Promise<string> {
  const rows =
    table === 'workflows'
      ? await stack.db.admin`select id from workflows where name like 'Greeter%' limit 1`
      : await stack.db.admin`select id from executions order by started_at limit 1`;
  return rows[0]?.id as string;
}

/** What the Content-Security-Policy refuses on `page` (Chromium reports each refusal on the console). */
function collectCspViolations(page: Page): string[] {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  return refused;
}

describe('every page', () => {
  // The four variants read the same pages in browser contexts of their own: they run at the same
  // time, so that one's waits (navigation, network idle) fill with another's axe and screenshots.
  for (const width of ['wide', 'narrow'] as const) {
    for (const dark of [false, true]) {
      const variant = `${width}-${dark ? 'dark' : 'light'}`;
      it.concurrent(`renders and passes axe: ${variant}`, { timeout: 120_000 }, async () => {
        const page = await adminPage({ width, dark });
        const refused = collectCspViolations(page);
        for (const target of PAGES) {
          const path = typeof target.path === 'string' ? target.path : await target.path();
          await page.goto(path);
          await page.getByRole('heading', { level: 1, name: target.heading }).waitFor();
          await page.waitForLoadState('networkidle');
          await expectAccessible(page, `${target.name} (${variant})`);
          await screenshot(page, `${target.name}-${variant}`);
        }
        // Every page works under the Content-Security-Policy: nothing it needs was refused.
        expect(refused).toEqual([]);
        await page.context().close();
      });
    }
  }

  it('pages carry the security headers: a nonce-based CSP that forbids framing, nosniff, Referrer-Policy', async () => {
    const response = await fetch(`${base}/login`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    const html = await response.text();
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    // app.html's theme script carries the page's nonce, so it still runs.
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    // A second request gets another nonce.
    expect((await fetch(`${base}/login`)).headers.get('content-security-policy')).not.toBe(csp);
  });

  it('signed-out pages render and pass axe in both themes', async () => {
    for (const dark of [false, true]) {
      const page = await (
        await newContext(browser, base, { dark, width: dark ? 'narrow' : 'wide' })
      ).newPage();
      const refused = collectCspViolations(page);
      for (const [path, heading] of [
        ['/login', 'Sign in'],
        ['/forgot-password', 'Reset your password'],
        ['/reset-password?token=x', 'Choose a new password'],
        ['/register', 'Create an account'],
      ] as const) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await expectAccessible(page, `${path} (${dark ? 'dark' : 'light'})`);
        await screenshot(page, `${path.slice(1).split('?')[0]}-${dark ? 'narrow-dark' : 'wide-light'}`);
      }
      expect(refused).toEqual([]);
      await page.context().close();
    }
  });
});
