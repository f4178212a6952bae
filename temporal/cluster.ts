import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ClusterBinariesEnv, childProcessEnv, loadProcessEnv, loopbackPortFree } from '@weft/config';
import type { TemporalConnectionOptions } from './connection';
import { spawnTemporalServer, type TemporalServerProcess } from './server-process';

const run = promisify(execFile);

/**
 * The production Temporal path: the real server (`temporal-server`, go.temporal.io/server) on
 * PostgreSQL persistence with SQL visibility, its schema applied by Temporal's own `temporal-sql-tool`.
 * `weft up --temporal cluster` and the cluster test run start it from here; docker-compose.yml runs
 * the same version with the same settings (the official images read the same environment variables
 * through the server's embedded config template) and the same deploy/temporal/dynamicconfig.yaml.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.0';

/** Settings that do not depend on the host. docker-compose.yml's temporal service carries the same (a test checks). */
export const CLUSTER_SERVER_SETTINGS = {
  DB: 'postgres12',
  DBNAME: 'temporal',
  VISIBILITY_DBNAME: 'temporal_visibility',
  NUM_HISTORY_SHARDS: '4',
  TEMPORAL_ALLOW_NO_AUTH: 'true',
} as const;

/** The two databases and the schema temporal-sql-tool applies to each (embedded in the tool). */
export const CLUSTER_SCHEMAS = [
  { database: CLUSTER_SERVER_SETTINGS.DBNAME, schema: 'postgresql/v12/temporal' },
  { database: CLUSTER_SERVER_SETTINGS.VISIBILITY_DBNAME, schema: 'postgresql/v12/visibility' },
] as const;

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
}

/**
 * Where the server comes from: TEMPORAL_SERVER_BIN / TEMPORAL_SQL_TOOL, else the copy that
 * scripts/build-temporal-server.sh builds into .tools (it needs a Go toolchain, which the dev-server
 * path does not). Undefined when neither exists.
 */
export function findClusterBinaries(
  projectRoot: string,
  env = loadProcessEnv(ClusterBinariesEnv),
): ClusterBinaries | undefined {
  const dir = path.join(projectRoot, '.tools', 'temporal-server', TEMPORAL_SERVER_VERSION, 'bin');
  const server = env.TEMPORAL_SERVER_BIN ?? path.join(dir, 'temporal-server');
  const sqlTool = env.TEMPORAL_SQL_TOOL ?? path.join(dir, 'temporal-sql-tool');
  return existsSync(server) && existsSync(sqlTool) ? { server, sqlTool } : undefined;
}

/** Builds the binaries when missing (minutes on a cold Go cache); throws with the script's one line otherwise. */
export async function ensureClusterBinaries(projectRoot: string): Promise<ClusterBinaries> {
  const found = findClusterBinaries(projectRoot);
  if (found) return found;
  const script = path.join(projectRoot, 'scripts', 'build-temporal-server.sh');
  try {
    await run(script, [], { env: childProcessEnv({ TEMPORAL_SERVER_VERSION }), maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? error)
      .trim()
      .split('\n')
      .at(-1);
    throw new Error(`cannot build temporal-server: ${stderr}`);
  }
  const built = findClusterBinaries(projectRoot);
  if (!built) throw new Error('scripts/build-temporal-server.sh finished but the binaries are missing');
  return built;
}

export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

/**
 * Creates the two databases when missing and brings their schemas to the latest version with
 * `temporal-sql-tool` (setup-schema once, then update-schema: safe on every start, as Temporal's own
 * admin-tools job runs it).
 */
export async function applyClusterSchema(
  sqlTool: string,
  db: ClusterDatabase,
  log?: (line: string) => void,
): Promise<void> {
  for (const target of CLUSTER_SCHEMAS) {
    const base = [
      '--plugin',
      'postgres12',
      '--ep',
      db.host,
      '-p',
      String(db.port),
      '-u',
      db.user,
      '--db',
      target.database,
    ];
    const env = childProcessEnv({ SQL_PASSWORD: db.password });
    const tool = (args: string[]) => run(sqlTool, [...base, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
    await tool(['create-database']).catch((error: { stderr?: string }) => {
      if (!/already exists/i.test(String(error.stderr ?? error))) throw error;
    });
    await tool(['setup-schema', '-v', '0.0']).catch((error: { stderr?: string }) => {
      if (!/already exists/i.test(String(error.stderr ?? error))) throw error;
    });
    await tool(['update-schema', '--schema-name', target.schema]);
    log?.(`schema of ${target.database} is current`);
  }
}

export interface ClusterOptions {
  binaries: ClusterBinaries;
  db: ClusterDatabase;
  /** Frontend gRPC port; the other services take the next ports up (see clusterPorts). */
  port: number;
  dynamicConfigFile: string;
  /** The server's own Prometheus metrics on this port, when set. */
  metricsPort?: number;
  /** TLS on the frontend (and between the server's own services); plaintext when absent. */
  tls?: ClusterTls;
  log?: (line: string) => void;
}

/**
 * The server's TLS (PEM files), set through the environment variables of its embedded config
 * template, as the official images do. One certificate serves the frontend and the internal
 * traffic (the system worker presents it to the frontend), so it needs both the serverAuth and
 * clientAuth key usages and `serverName` among its names.
 */
export interface ClusterTls {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** A name in the certificate: the server's own clients dial 127.0.0.1 and check this name. */
  serverName: string;
  /** mTLS: refuse frontend clients without a certificate signed by `caFile`. */
  requireClientAuth: boolean;
}

export function clusterTlsEnv(tls: ClusterTls): Record<string, string> {
  return {
    TEMPORAL_TLS_SERVER_CA_CERT: tls.caFile,
    TEMPORAL_TLS_SERVER_CERT: tls.certFile,
    TEMPORAL_TLS_SERVER_KEY: tls.keyFile,
    TEMPORAL_TLS_INTERNODE_SERVER_NAME: tls.serverName,
    TEMPORAL_TLS_FRONTEND_CERT: tls.certFile,
    TEMPORAL_TLS_FRONTEND_KEY: tls.keyFile,
    TEMPORAL_TLS_CLIENT1_CA_CERT: tls.caFile,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: tls.serverName,
    TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: String(tls.requireClientAuth),
  };
}

/** How our readiness probe reaches a TLS frontend: the server's own certificate doubles as a client's. */
function tlsProbe(address: string, tls: ClusterTls): TemporalConnectionOptions {
  return {
    address,
    tls: {
      serverRootCACertificate: readFileSync(tls.caFile),
      serverNameOverride: tls.serverName,
      clientCertPair: { crt: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    },
  };
}

export type RunningCluster = TemporalServerProcess;

/** Every port the server listens on, from the frontend's up: ten in a row. */
export function clusterPorts(frontend: number): Record<string, string> {
  const names = [
    'FRONTEND_GRPC_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'FRONTEND_HTTP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
    'INTERNAL_FRONTEND_GRPC_PORT',
    'INTERNAL_FRONTEND_MEMBERSHIP_PORT',
    'INTERNAL_FRONTEND_HTTP_PORT',
  ];
  return Object.fromEntries(names.map((name, index) => [name, String(frontend + index)]));
}

/** The highest port temporal-server can record for a service (a PostgreSQL smallint). */
export const MAX_CLUSTER_PORT = 32_767;

/** A frontend port whose eleven successors are free too (see clusterPorts), for tests and chaos runs. */
export async function freeClusterPortRange(): Promise<number> {
  const count = Object.keys(clusterPorts(0)).length;
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below 32,768: temporal-server keeps each membership port in a smallint column
    // (cluster_membership.rpc_port); a higher one stops it at start-up with 22003.
    const base = 20_000 + Math.floor(Math.random() * (MAX_CLUSTER_PORT - count - 20_000));
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => loopbackPortFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error('no range of free ports for temporal-server');
}

/** Applies the schema, starts `temporal-server start` and waits until its frontend answers. */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  await applyClusterSchema(options.binaries.sqlTool, options.db, options.log);
  const address = `127.0.0.1:${options.port}`;
  const env: Record<string, string> = {
    ...childProcessEnv(),
    ...CLUSTER_SERVER_SETTINGS,
    POSTGRES_SEEDS: options.db.host,
    DB_PORT: String(options.db.port),
    POSTGRES_USER: options.db.user,
    POSTGRES_PWD: options.db.password,
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile,
    LOG_LEVEL: 'warn',
    ...clusterPorts(options.port),
    ...(options.metricsPort ? { PROMETHEUS_ENDPOINT: `127.0.0.1:${options.metricsPort}` } : {}),
    ...(options.tls ? clusterTlsEnv(options.tls) : {}),
  };
  return spawnTemporalServer({
    name: 'temporal-server',
    command: options.binaries.server,
    args: ['start'],
    env,
    address,
    probe: options.tls ? tlsProbe(address, options.tls) : undefined,
    startTimeoutMs: 120_000,
    exitHint: `ports ${options.port}–${options.port + 11} in use?`,
    stopGraceMs: 15_000,
    log: options.log,
  });
}
