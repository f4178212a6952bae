import { schema, withTenant } from '@weft/db';
import { progressReporter } from './progress';
import { startWebBench } from './web-stack';

const STATUSES = ['success', 'success', 'success', 'failed', 'partial', 'cancelled', 'waiting'] as const;

/**
 * `weft bench web`: the executions page's first load with N executions in the organization. Seeds
 * them, starts the API+web server, signs in a browser (Debian's chromium) and times, for each run
 * in a fresh browser context (cold cache), navigation to /executions until the first row shows.
 */
export async function benchWebCommand(options: { executions: number; runs: number }) {
  const bench = await startWebBench();
  try {
    const seedStart = performance.now();
    const workflowId = crypto.randomUUID();
    const seeded = progressReporter('seeding executions', options.executions);
    for (let offset = 0; offset < options.executions; offset += 1000) {
      const batch = Array.from({ length: Math.min(1000, options.executions - offset) }, (_, j) => {
        const i = offset + j;
        const startedAt = new Date(Date.now() - i * 60_000);
        return {
          organizationId: bench.organizationId,
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
      await withTenant(bench.db, bench.organizationId, (tx) => tx.insert(schema.executions).values(batch));
      seeded(offset + batch.length);
    }
    process.stdout.write(
      `seeded ${options.executions} executions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`,
    );
    const times: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      const context = await bench.browser.newContext({ baseURL: bench.baseUrl, storageState: bench.state });
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
    await bench.close();
  }
}
