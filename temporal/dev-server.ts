import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnTemporalServer } from './server-process';
import { SEARCH_ATTRIBUTES } from './shared';

const run = promisify(execFile);

/**
 * Where the Temporal CLI comes from, in order: an explicit path (TEMPORAL_CLI), `temporal` on PATH,
 * then the pinned copy that scripts/setup.sh installs into .tools/temporal-venv.
 */
export async function resolveTemporalCli(explicit: string | undefined, projectRoot: string): Promise<string> {
  if (explicit) return explicit;
  try {
    const { stdout } = await run('sh', ['-c', 'command -v temporal']);
    if (stdout.trim()) return stdout.trim();
  } catch {
    // not on PATH
  }
  const bundled = path.join(projectRoot, '.tools', 'temporal-venv', 'bin', 'temporal');
  if (existsSync(bundled)) return bundled;
  throw new Error('Temporal CLI not found: run ./weft (it installs one into .tools) or set TEMPORAL_CLI.');
}

/**
 * Dynamic config of every dev server Weft starts (`weft up`, the benches, the tests). Each value was
 * measured with `weft bench engine` (docs/decisions.md has the figures):
 * - per-organization fairness (fairness keys on task queues) needs the new matcher, off by default;
 * - the CLI forces a search-attribute cache refresh on every read, a persistence read of the cluster
 *   metadata each time (7 per execution here). Weft registers its attributes when the namespace is
 *   created, before anything reads them, so the cache may serve them;
 * - one task-queue partition: with one worker there is nothing to spread, and 4 partitions forward
 *   tasks between themselves (p99 of a no-op at concurrency 16: 507 → 265 ms).
 * Left at their defaults on purpose: the history queues' poll rate (raising it from 20 to 1,000/s
 * halved a non-eager no-op's latency but made every start contend with the pollers for SQLite's
 * one connection: eager executions got slower).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
];

export interface DevServerOptions {
  cli: string;
  /** SQLite file for the server's state; reused across restarts. Without one, state is in memory (tests). */
  dbFile?: string;
  port: number;
  /** The Web UI's port; without one the server runs headless (tests). */
  uiPort?: number;
  namespace: string;
  /**
   * SQLite `synchronous` setting. NORMAL (default) survives a crash of the server process;
   * OFF skips the fsyncs too, as Temporal's own SDK stress tests run it, for throughput runs.
   */
  sqliteSynchronous?: 'NORMAL' | 'OFF';
  /** More dynamic config values (`KEY=JSON`), after ours, so they win (benchmarks try levers with it). */
  dynamicConfig?: string[];
  /** Serve the server's Prometheus metrics on this port (`/metrics`), for benchmarks and operators. */
  metricsPort?: number;
  /** The Web UI decodes payloads through this remote codec (the API's /api/temporal-codec). */
  uiCodecEndpoint?: string;
  log?: (line: string) => void;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `temporal server start-dev`, waits until its frontend answers, registers our search attributes. */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  if (options.dbFile) mkdirSync(path.dirname(options.dbFile), { recursive: true });
  const address = `127.0.0.1:${options.port}`;
  const args = [
    'server',
    'start-dev',
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    '--namespace',
    options.namespace,
    '--ui-disable-news-fetch',
    '--sqlite-pragma',
    'journal_mode=WAL',
    '--sqlite-pragma',
    `synchronous=${options.sqliteSynchronous ?? 'NORMAL'}`,
    '--log-level',
    'warn',
    ...(options.metricsPort ? ['--metrics-port', String(options.metricsPort)] : []),
    ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
    ...[...DEV_SERVER_DYNAMIC_CONFIG, ...(options.dynamicConfig ?? [])].flatMap((value) => [
      '--dynamic-config-value',
      value,
    ]),
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
  ];
  const server = await spawnTemporalServer({
    name: 'The Temporal dev server',
    command: options.cli,
    args,
    address,
    startTimeoutMs: 60_000,
    exitHint: 'is the port in use?',
    stopGraceMs: 10_000,
    log: options.log,
  });
  // A fresh in-memory namespace was created with the attributes (`--search-attribute`).
  if (options.dbFile) await ensureSearchAttributes(options.cli, address, options.namespace);
  return { ...server, uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : '' };
}

/**
 * `--search-attribute` only applies when the namespace is created, so on a reused database file the
 * attributes are (re)registered explicitly; "already exists" is fine.
 */
export async function ensureSearchAttributes(cli: string, address: string, namespace: string): Promise<void> {
  for (const key of Object.values(SEARCH_ATTRIBUTES)) {
    try {
      await run(cli, [
        'operator',
        'search-attribute',
        'create',
        '--address',
        address,
        '--namespace',
        namespace,
        '--name',
        key.name,
        '--type',
        'Keyword',
      ]);
    } catch (error) {
      const text = `${(error as { stderr?: string }).stderr ?? ''} ${String(error)}`;
      if (!/already exists/i.test(text)) throw error;
    }
  }
}
