import { freePort } from '@weft/testing';
import type { APIRequestContext, Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import {
  type CountingServer,
  createStack,
  type ServiceProcess,
  type Stack,
  spawnService,
  startCountingServer,
} from '../../temporal/test/support';
import { launchBrowser, newContext, WIDTHS } from './browser';

/** One Weft installation for a browser test file: its stack, a counting HTTP target, chromium, an admin. */
export interface BrowserInstallation {
  stack: Stack;
  /** A local HTTP server that counts the calls it gets (answers after 5 ms). */
  http: CountingServer;
  browser: Browser;
  /** The web+API origin. */
  base: string;
  /** The first admin's signed-in browser state. */
  admin: Awaited<ReturnType<BrowserContext['storageState']>>;
  /** A browser profile signed in as the admin, at a width and theme. */
  signedIn(options?: { width?: keyof typeof WIDTHS; dark?: boolean }): Promise<BrowserContext>;
  /** A page of such a profile, on the dashboard (close it with `page.context().close()`). */
  openPage(options?: { width?: keyof typeof WIDTHS; dark?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Starts the stack and one combined API+worker process, launches chromium and runs the installation
 * wizard for `admin`. `env` adds to the process's environment.
 */
export async function startBrowserInstallation(
  admin: { organization_name: string; name: string; email: string },
  env: Record<string, string> = {},
): Promise<BrowserInstallation> {
  const [stack, http] = await Promise.all([createStack(), startCountingServer(() => 5)]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: ServiceProcess = spawnService('api', {
    ...stack.serviceEnv,
    RUN_WORKER: 'true',
    PORT: String(port),
    APP_URL: base,
    TRUST_PROXY_HOPS: '1',
    ...env,
  });
  const [browser] = await Promise.all([launchBrowser(), server.ready]);
  const context = await newContext(browser, base);
  const res = await context.request.post('/api/v1/auth/setup', {
    headers: { Origin: base },
    data: { ...admin, password: 'correct horse battery staple' },
  });
  expect(res.status()).toBe(201);
  const state = await context.storageState();
  await context.close();
  const signedIn: BrowserInstallation['signedIn'] = async (options = {}) => {
    const signed = await browser.newContext({
      baseURL: base,
      storageState: state,
      viewport: WIDTHS[options.width ?? 'wide'],
      colorScheme: options.dark ? 'dark' : 'light',
    });
    signed.setDefaultTimeout(30_000);
    return signed;
  };
  return {
    stack,
    http,
    browser,
    base,
    admin: state,
    signedIn,
    async openPage(options = {}) {
      const page = await (await signedIn(options)).newPage();
      await page.goto('/');
      return page;
    },
    async close() {
      await browser.close();
      await server.kill();
      await stack.close();
      http.server.close();
    },
  };
}

/** The API as a signed-in page calls it (its session cookie and CSRF token), from inside the page. */
export async function pageApi(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = (await (await fetch('/api/v1/me')).json()) as { csrf_token: string };
      const res = await fetch(`/api/v1${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'X-CSRF-Token': me.csrf_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => null)) as any };
    },
    { method, path, body },
  );
}

/** The API as the signed-in admin: session cookie plus the CSRF token state-changing calls need. */
export async function sessionApi(request: APIRequestContext, base: string) {
  const me = await (await request.get('/api/v1/me')).json();
  const headers = { Origin: base, 'X-CSRF-Token': me.csrf_token as string };
  return async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, data?: unknown) => {
    const res = await request.fetch(`/api/v1${path}`, { method, headers, data });
    return { status: res.status(), body: await res.json() };
  };
}
