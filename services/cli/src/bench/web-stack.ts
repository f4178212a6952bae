import { existsSync } from 'node:fs';
import path from 'node:path';
import { BenchEnv, freeLoopbackPort, loadProcessEnv } from '@weft/config';
import { connectDatabase } from '@weft/db';
import { createOrganization, createUser } from '@weft/domain';
import { type Browser, chromium } from 'playwright-core';
import { runLogDirectory, spawnService, stopChild, waitForHttp } from '../children';
import { openDatabase } from '../database';
import { dataPath, loadCliEnv, PROJECT_ROOT } from '../project';
import { serviceBundles } from '../service-bundle';
import { ensureWebBuild } from '../web-build';

/**
 * What the browser benches share: the built web app served by the API on a free port (no Temporal:
 * these benches measure pages, not runs), a fresh organization with an admin, Debian's chromium and
 * that admin's signed-in browser state.
 */
export async function startWebBench() {
  const executable = [loadProcessEnv(BenchEnv).CHROMIUM_PATH, '/usr/bin/chromium'].find((p): p is string =>
    Boolean(p && existsSync(p)),
  );
  if (!executable)
    throw new Error('No chromium: install Debian chromium (./weft test does) or set CHROMIUM_PATH.');
  await ensureWebBuild(PROJECT_ROOT, (line) => process.stdout.write(`${line}\n`));
  const env = loadCliEnv();
  const database = await openDatabase(env);
  const handle = connectDatabase(database.appUrl, { max: 4 });
  const org = await createOrganization(handle.db, { name: `web bench ${new Date().toISOString()}` });
  const email = `bench-${Date.now()}@weft.invalid`;
  const password = 'bench password 123';
  await createUser({
    ctx: { db: handle.db, organizationId: org.id, actor: {} },
    input: { email, password, role: 'admin' },
  });
  const port = await freeLoopbackPort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawnService(
    (await serviceBundles()).api,
    {
      DATABASE_URL: database.appUrl,
      PORT: String(port),
      APP_URL: baseUrl,
      TEMPORAL_ADDRESS: '',
    },
    { logFile: path.join(runLogDirectory(dataPath(env), 'bench-web'), 'api.log') },
  );
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await stopChild(server);
    await handle.close();
  };
  try {
    browser = await chromium.launch({
      executablePath: executable,
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    await waitForHttp(`${baseUrl}/healthz`, 60_000, () => server.exitCode === null);
    const signIn = await browser.newContext({ baseURL: baseUrl });
    const login = await signIn.request.post('/api/v1/auth/login', { data: { email, password } });
    if (!login.ok()) throw new Error(`sign-in failed: ${login.status()} ${await login.text()}`);
    const { csrf_token: csrfToken } = (await login.json()) as { csrf_token: string };
    const state = await signIn.storageState();
    await signIn.close();
    return { db: handle.db, organizationId: org.id, baseUrl, browser, state, csrfToken, close };
  } catch (error) {
    await close();
    throw error;
  }
}
