import { freePort } from '@weft/testing';
import type { APIRequestContext, Browser, BrowserContext } from 'playwright-core';
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
  return {
    stack,
    http,
    browser,
    base,
    admin: state,
    async signedIn(options = {}) {
      const signed = await browser.newContext({
        baseURL: base,
        storageState: state,
        viewport: WIDTHS[options.width ?? 'wide'],
        colorScheme: options.dark ? 'dark' : 'light',
      });
      signed.setDefaultTimeout(30_000);
      return signed;
    },
    async close() {
      await browser.close();
      await server.kill();
      await stack.close();
      http.server.close();
    },
  };
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
