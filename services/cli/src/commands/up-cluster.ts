import path from 'node:path';
import type { CliEnv } from '@weft/config';
import {
  clusterPorts,
  ensureClusterBinaries,
  MAX_CLUSTER_PORT,
  type RunningCluster,
  startCluster,
} from '@weft/temporal/cluster';
import { PROJECT_ROOT } from '../project';

/**
 * `weft up --temporal cluster`: the production Temporal server (temporal-server on PostgreSQL, SQL
 * visibility, 4 history shards, deploy/temporal/dynamicconfig.yaml), its databases `temporal` and
 * `temporal_visibility` in the same PostgreSQL as Weft's (the owner role creates them). Needs the
 * binaries scripts/build-temporal-server.sh builds with Go; its frontend listens on TEMPORAL_PORT
 * and its other services on the next eleven ports.
 */
export async function startLocalCluster(
  env: CliEnv,
  adminUrl: string,
  log: (line: string) => void,
  stopping: () => boolean,
): Promise<RunningCluster> {
  const lastPort = env.TEMPORAL_PORT + Object.keys(clusterPorts(0)).length - 1;
  if (lastPort > MAX_CLUSTER_PORT) {
    throw new Error(
      `TEMPORAL_PORT ${env.TEMPORAL_PORT} is too high for --temporal cluster: its services take ports up to ${lastPort}, and temporal-server records them as numbers up to ${MAX_CLUSTER_PORT}; choose ${MAX_CLUSTER_PORT - 11} or lower`,
    );
  }
  log('temporal-server: checking the binaries (built with Go on first use; minutes on a cold cache)');
  const binaries = await ensureClusterBinaries(PROJECT_ROOT);
  const url = new URL(adminUrl);
  log(
    `starting temporal-server on 127.0.0.1:${env.TEMPORAL_PORT} (PostgreSQL ${url.hostname}:${url.port || 5432})`,
  );
  return startCluster({
    binaries,
    db: {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    },
    port: env.TEMPORAL_PORT,
    dynamicConfigFile: path.join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'),
    log: (line) => {
      if (!stopping() && /"level":"(error|fatal)"|panic/i.test(line)) log(`temporal: ${line}`);
    },
  });
}
