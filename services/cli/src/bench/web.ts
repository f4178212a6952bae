import { existsSync } from 'node:fs';
import path from 'node:path';
import { connectDatabase, schema, withTenant } from '@weft/db';
import { createOrganization, createUser } from '@weft/services';
import { chromium } from 'playwright-core';
import { spawnService, stopChild, waitForHttp } from '../children';
import { openDatabase } from '../database';
import { freePortOnLoopback } from '../free-port';
import { loadCliEnv, PROJECT_ROOT } from '../project';
import { ensureWebBuild } from '../web-build';

const STATUSES = ['success', 'success', 'success', 'failed', 'partial', 'cancelled', 'waiting'] as const;

/**
 * `weft bench web`: the executions page's first load with N executions in the organization. Seeds
 * them, starts the API+web server, signs in a browser (Debian's chromium) and times, for each run
 * in a fresh browser context (cold cache), navigation to /executions until the first row shows.
 */
export async function benchWebCommand(options: { executions: number; runs: number }) {
  const executable = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((p): p is string =>
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

  const seedStart = performance.now();
  const workflowId = crypto.randomUUID();
  for (let offset = 0; offset < options.executions; offset += 1000) {
    const batch = Array.from({ length: Math.min(1000, options.executions - offset) }, (_, j) => {
      const i = offset + j;
      const startedAt = new Date(Date.now() - i * 60_000);
      return {
        organizationId: org.id,
        workflowId,
        workflowName: `bench flow ${i % 20}`,
        workflowVersion: 1,
        graph: { trigger_type: 'manual', trigger_config: {}, nodes: [], edges: [] },
        status: STATUSES[i % STATUSES.length] as (typeof STATUSES)[number],
        trigger: 'api',
        triggerPayload: { i },
        startedAt,
        completedAt: startedAt,
        durationMs: 40 + (i % 50),
      };
    });
    await withTenant(handle.db, org.id, (tx) => tx.insert(schema.executions).values(batch));
  }
  process.stdout.write(
    `seeded ${options.executions} executions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`,
  );

  const port = await freePortOnLoopback();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawnService(path.join(PROJECT_ROOT, 'services/api/src/main.ts'), {
    DATABASE_URL: database.appUrl,
    PORT: String(port),
    APP_URL: baseUrl,
    TEMPORAL_ADDRESS: '',
  });
  const browser = await chromium.launch({
    executablePath: executable,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    await waitForHttp(`${baseUrl}/healthz`, 60_000, () => server.exitCode === null);
    const signIn = await browser.newContext({ baseURL: baseUrl });
    const login = await signIn.request.post('/api/v1/auth/login', { data: { email, password } });
    if (!login.ok()) throw new Error(`sign-in failed: ${login.status()} ${await login.text()}`);
    const state = await signIn.storageState();
    await signIn.close();

    const times: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const context = await browser.newContext({ baseURL: baseUrl, storageState: state });
      const page = await context.newPage();
      const start = performance.now();
      await page.goto('/executions');
      await page.locator('tbody tr').first().waitFor({ timeout: 30_000 });
      times.push(performance.now() - start);
      await context.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    process.stdout.write(
      `\n/executions with ${options.executions} executions, first row visible (fresh context each run):\n` +
        `  runs: ${times.map((t) => t.toFixed(0)).join(', ')} ms\n` +
        `  median ${median.toFixed(0)} ms, worst ${(sorted.at(-1) as number).toFixed(0)} ms (target < 1000 ms)\n`,
    );
  } finally {
    await browser.close();
    await stopChild(server);
    await handle.close();
  }
}
