import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createHttpServer } from '@weft/api';
import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type CountingServer,
  chain,
  createStack,
  createWorkflow,
  execute,
  httpPost,
  ROOT,
  type ServiceProcess,
  type Stack,
  spawnService,
  startCountingServer,
} from './support';

let stack: Stack;
let org: { organizationId: string; key: string };
let http: CountingServer;
let worker: ServiceProcess;
let workerMetricsUrl: string;
let sdkMetricsUrl: string;
let executionId: string;
let workflowId: string;
let execution: any;

beforeAll(async () => {
  [stack, http] = await Promise.all([createStack(), startCountingServer(() => 5)]);
  org = await stack.createOrg();
  const [workerPort, sdkPort] = [await freePort(), await freePort()];
  workerMetricsUrl = `http://127.0.0.1:${workerPort}/metrics`;
  sdkMetricsUrl = `http://127.0.0.1:${sdkPort}/metrics`;
  worker = spawnService('worker', {
    ...stack.serviceEnv,
    LOG_LEVEL: 'info',
    WORKER_METRICS_PORT: String(workerPort),
    TEMPORAL_SDK_METRICS_PORT: String(sdkPort),
  });
  await worker.ready;

  http.failing.add('/refused');
  workflowId = await createWorkflow(stack, org.key, {
    name: 'observed',
    nodes: [
      httpPost('fetch', `${http.baseUrl}/ok`),
      httpPost('refused', `${http.baseUrl}/refused`, { on_failure: 'continue' }),
      {
        id: 'script',
        type: 'action.code',
        config: { code: 'console.info("status", input.nodes.fetch.status); return 7', capture_logs: true },
      },
    ],
    edges: chain('fetch', 'refused', 'script'),
  });
  executionId = await execute(stack, org.key, workflowId);
  execution = await stack.waitForExecution(org.key, executionId, (e) => e.status === 'partial');
}, 180_000);

afterAll(async () => {
  await worker?.kill();
  await stack?.close();
  http?.server.close();
});

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.text();
}

/** Every series name a scrape exposes, histogram and summary parts included. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const typed = line.match(/^# TYPE (\S+) (\w+)/);
    if (typed?.[1]) {
      names.add(typed[1]);
      if (typed[2] === 'histogram' || typed[2] === 'summary') {
        for (const part of ['_bucket', '_sum', '_count']) names.add(`${typed[1]}${part}`);
      }
      continue;
    }
    const sample = line.match(/^([a-zA-Z_:][\w:]*)[{ ]/);
    if (sample?.[1]) names.add(sample[1]);
  }
  return names;
}

/** The worker's JSON log lines (its standard output and error). */
function workerLines(): Record<string, any>[] {
  return worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

describe('a worker process', () => {
  it('serves its metrics: executions started and finished, step durations, deliveries, the process', async () => {
    const text = await scrape(workerMetricsUrl);
    expect(text).toMatch(/^weft_executions_started_total\{trigger="api"\} [1-9]/m);
    expect(text).toMatch(/^weft_executions_finished_total\{status="partial"\} [1-9]/m);
    expect(text).toMatch(
      /^weft_step_duration_seconds_count\{node_type="action.http_request",outcome="failed"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^weft_step_duration_seconds_count\{node_type="action.code",outcome="completed"\} 1/m,
    );
    expect(text).toContain('# TYPE weft_webhook_deliveries_total counter');
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('serves what on-call needs besides: runs per organization and workflow, pool use, outbox and task-queue backlog', async () => {
    const text = await scrape(workerMetricsUrl);
    expect(text).toMatch(
      new RegExp(
        `^weft_workflow_executions_finished_total\\{organization_id="${org.organizationId}",workflow_id="${workflowId}",status="partial"\\} 1$`,
        'm',
      ),
    );
    // Set by the worker's own samplers and sweeper, which run from its start.
    expect(text).toMatch(/^weft_db_pool_max_connections \d+$/m);
    expect(text).toMatch(/^weft_db_pool_open_connections [1-9]/m);
    expect(text).toMatch(/^weft_webhook_outbox_unstarted 0$/m);
    expect(text).toMatch(/^weft_task_queue_backlog\{task_queue="[^"]+",task_type="workflow"\} \d+$/m);
    expect(text).toMatch(
      /^weft_task_queue_backlog_age_seconds\{task_queue="[^"]+",task_type="activity"\} \S+$/m,
    );
  });

  it('serves the Temporal SDK metrics on their own port', async () => {
    const names = exposedNames(await scrape(sdkMetricsUrl));
    expect([...names].filter((n) => n.startsWith('temporal_')).length).toBeGreaterThan(5);
  });

  it('logs JSON lines; workflow and activity lines carry the execution and node ids', async () => {
    // The workflow's lines reach the log through the SDK's sink after the activation that made them,
    // which can be after the execution's end was recorded: wait for them (a loaded machine is slow).
    await vi.waitFor(
      () => {
        const logged = workerLines();
        expect(logged.some((l) => l.msg === 'step failed' && l.node_id === 'refused')).toBe(true);
        expect(logged.some((l) => l.msg === 'node run failed' && l.node_id === 'refused')).toBe(true);
      },
      { timeout: 15_000, interval: 100 },
    );
    const lines = workerLines();
    expect(lines.find((l) => /polling task queue/.test(l.msg))).toMatchObject({
      level: 'info',
      time: expect.any(String),
    });
    // From the interpreter (workflow `log`, through the SDK's sink): Temporal's ids and Weft's.
    expect(lines.find((l) => l.msg === 'step failed' && l.node_id === 'refused')).toMatchObject({
      level: 'warn',
      execution_id: executionId,
      node_type: 'action.http_request',
      code: 'http_status',
      sdkComponent: 'workflow',
      workflowId: `exec-${executionId}`,
    });
    // From the run-node activity (a short HTTP request's first attempt runs as a local activity).
    expect(lines.find((l) => l.msg === 'node run failed' && l.node_id === 'refused')).toMatchObject({
      level: 'warn',
      execution_id: executionId,
      sdkComponent: 'activity',
      activityType: 'runNodeLocally',
      isLocal: true,
    });
    // User data and secrets stay out: no step output, no API key.
    const text = worker.output();
    expect(text).not.toContain(org.key);
    expect(text).not.toContain('"status", 200');
  });

  it("records the code node's console lines in its step output", () => {
    const step = execution.steps.find((s: any) => s.node_id === 'script');
    expect(step.output).toEqual({
      result: 7,
      logs: [{ level: 'info', message: 'status 200' }],
      logs_truncated: false,
    });
  });
});

describe('deploy/grafana/weft-dashboard.json', () => {
  it('is a Grafana dashboard on a Prometheus datasource variable whose every metric is exposed', async () => {
    const dashboard = JSON.parse(
      await readFile(path.join(ROOT, 'deploy/grafana/weft-dashboard.json'), 'utf8'),
    );
    expect(dashboard).toMatchObject({
      title: expect.any(String),
      uid: expect.any(String),
      panels: expect.any(Array),
    });
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ type: 'datasource', name: 'datasource', query: 'prometheus' }),
    );
    const targets = dashboard.panels.flatMap((p: any) => p.targets ?? []);
    expect(targets.length).toBeGreaterThanOrEqual(10);
    for (const panel of dashboard.panels.filter((p: any) => p.type !== 'row')) {
      // Grafana's own variable syntax, not a template literal.
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '$' + '{datasource}' });
      expect(panel.gridPos, panel.title).toMatchObject({ h: expect.any(Number), w: expect.any(Number) });
    }

    // The API's /metrics over a real socket: it answers local callers only.
    const api = createHttpServer(stack.app);
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    let exposed: Set<string>;
    try {
      exposed = new Set([
        ...exposedNames(await scrape(`http://127.0.0.1:${(api.address() as AddressInfo).port}/metrics`)),
        ...exposedNames(await scrape(workerMetricsUrl)),
        ...exposedNames(await scrape(sdkMetricsUrl)),
      ]);
    } finally {
      api.closeAllConnections();
      api.close();
    }
    const used = new Set<string>(
      targets.flatMap((t: any) =>
        [...String(t.expr).matchAll(/\b((?:weft|temporal|process|nodejs)_\w+)/g)].map((m) => m[1]),
      ),
    );
    expect(used.size).toBeGreaterThanOrEqual(10);
    const missing = [...used].filter((name) => !exposed.has(name));
    expect(missing, `exposed: ${[...exposed].filter((n) => n.startsWith('temporal_')).join(', ')}`).toEqual(
      [],
    );
  });
});
