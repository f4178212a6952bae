import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { registry } from '@weft/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support';

const run = promisify(execFile);
const RULES = path.join(ROOT, 'deploy/prometheus/alerts.yml');
const TESTS = path.join(ROOT, 'deploy/prometheus/alerts.test.yml');
// scripts/setup.sh puts Debian's promtool here for `./weft test`.
const PROMTOOL = path.join(ROOT, '.tools/promtool/promtool');
const hasPromtool = existsSync(PROMTOOL);

async function promtool(args: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { ok: false, output: stdout + stderr };
  }
}

describe.skipIf(!hasPromtool)('deploy/prometheus/alerts.yml (promtool)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weft-alerts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is valid Prometheus rules', async () => {
    const result = await promtool(['check', 'rules', RULES], ROOT);
    expect(result.output).toMatch(/SUCCESS: 8 rules found/);
    expect(result.ok).toBe(true);
  });

  it('passes its unit tests (alerts.test.yml: each alert fires on its input series, and not on healthy ones)', async () => {
    const result = await promtool(['test', 'rules', TESTS], path.dirname(TESTS));
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('whose unit tests catch a weakened rule', async () => {
    const rules = await readFile(RULES, 'utf8');
    const weakened = rules.replace(
      'weft_task_queue_backlog_age_seconds) > 60',
      'weft_task_queue_backlog_age_seconds) > 600',
    );
    expect(weakened).not.toBe(rules);
    await writeFile(path.join(dir, 'alerts.yml'), weakened);
    await copyFile(TESTS, path.join(dir, 'alerts.test.yml'));
    const result = await promtool(['test', 'rules', 'alerts.test.yml'], dir);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/alertname: WeftTaskQueueBacklog/);
  });
});

describe('the alert rules', () => {
  it('use only metrics Weft registers (or the Temporal SDK exports)', async () => {
    const rules = await readFile(RULES, 'utf8');
    const used = new Set([...rules.matchAll(/\b(weft_\w+)/g)].map((m) => m[1] as string));
    const registered = new Set<string>();
    for (const metric of registry.getMetricsAsArray()) {
      registered.add(metric.name);
      for (const part of ['_bucket', '_sum', '_count']) registered.add(`${metric.name}${part}`);
    }
    expect(used.size).toBeGreaterThanOrEqual(8);
    expect([...used].filter((name) => !registered.has(name))).toEqual([]);
    // The SDK's: the dashboard's test checks that a worker exports them (observability.test.ts).
    expect(rules).toContain('temporal_workflow_task_schedule_to_start_latency_seconds_bucket');
  });
});
