import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@weft/testing';
import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CountingServer,
  createStack,
  type ServiceProcess,
  type Stack,
  spawnService,
  startCountingServer,
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

async function adminPage(): Promise<Page> {
  const context = await newContext(browser, base);
  const page = await context.newPage();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByLabel('Code').fill(await code());
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  return page;
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
    await expect.poll(() => page.locator('#email-error').textContent()).toMatch(/valid e-mail/);
    await expect.poll(() => page.locator('#password-error').textContent()).toMatch(/at least 8/);
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

  it('shows one message for a wrong password and stops the 6th attempt in a minute', async () => {
    const context = await newContext(browser, base);
    const page = await context.newPage();
    // A wrong password and an unknown address answer the same message.
    for (const email of [ADMIN.email, 'nobody@acme.test', ADMIN.email, 'nobody@acme.test', ADMIN.email]) {
      await signIn(page, email, 'wrong password');
      await page.getByRole('alert').getByText('The e-mail or password is incorrect.').waitFor();
    }
    await expectAccessible(page, 'login (error)');
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
  });
});
