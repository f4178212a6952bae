import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium (installed by scripts/setup.sh), or CHROMIUM_PATH. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p): p is string => Boolean(p && existsSync(p)));
  if (!found)
    throw new Error('No chromium found: run ./weft test (it installs Debian chromium) or set CHROMIUM_PATH.');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    // Root in a container has no user namespaces for chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export const SCREENSHOT_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../test-results/screenshots',
);

export const WIDTHS = { wide: { width: 1280, height: 900 }, narrow: { width: 390, height: 844 } } as const;

/** The four looks a page is checked in: 1280 and 390 px wide, light and dark. */
export const VARIANTS = (['wide', 'narrow'] as const).flatMap((width) =>
  [false, true].map((dark) => ({ width, dark, variant: `${width}-${dark ? 'dark' : 'light'}` })),
);

/**
 * Runs `check` for each of the four looks at the same time, each in a browser context of its own:
 * one's waits (navigation, rendering) fill with another's axe run and screenshot.
 */
export async function inEveryVariant(
  check: (look: (typeof VARIANTS)[number]) => Promise<void>,
): Promise<void> {
  await Promise.all(VARIANTS.map(check));
}

let clientSeq = 0;

/**
 * A browser profile of its own (cookies, storage), seen by the server as a client of its own: the
 * server under test trusts one proxy hop (TRUST_PROXY_HOPS=1) and each context sends its own
 * X-Forwarded-For, as a proxy would, so the per-IP sign-in limits of one test leave the others alone.
 */
export async function newContext(
  browser: Browser,
  baseURL: string,
  options: { width?: keyof typeof WIDTHS; dark?: boolean } = {},
): Promise<BrowserContext> {
  clientSeq++;
  const context = await browser.newContext({
    baseURL,
    viewport: WIDTHS[options.width ?? 'wide'],
    colorScheme: options.dark ? 'dark' : 'light',
    extraHTTPHeaders: { 'X-Forwarded-For': `203.0.113.${clientSeq % 250}` },
  });
  // Fail with Playwright's own message (what it waited for) well before the test's timeout.
  context.setDefaultTimeout(30_000);
  return context;
}

/**
 * axe-core on the page: no serious or critical violation of WCAG 2.2 AA or of axe's best practices
 * (landmarks, heading order, tabindex...).
 * Legacy mode runs axe once in the page (same-origin frames included) instead of once per frame
 * and again in a blank page of its own to merge the results: 2-3 times faster per check (the
 * test run's largest browser item). It does not reach into cross-origin frames: our pages have
 * none but a captcha provider's widget, which is not ours to fix.
 */
export async function expectAccessible(page: Page, name: string) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .setLegacyMode(true)
    .analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
  expect(bad, `axe on ${name}`).toEqual([]);
}

export async function screenshot(page: Page, name: string) {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
