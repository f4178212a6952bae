import { temporalRetentionDays } from '@weft/config';
import { temporalConnectionOptions } from '@weft/temporal/connection';
import { setupTemporalNamespace } from '@weft/temporal/namespace-setup';
import { printResult } from '../output';
import { loadCliEnv } from '../project';

/**
 * `weft temporal setup`: the one-shot step of every deployment (docker-compose.yml's temporal-setup
 * job; `weft up` does the same itself): the namespace with a retention matching
 * EXECUTION_RETENTION_DAYS, and Weft's search attributes. Waits for a server that is still starting.
 */
export async function temporalSetupCommand(options: { address?: string; json: boolean }): Promise<void> {
  const env = loadCliEnv();
  const address = options.address ?? env.TEMPORAL_ADDRESS ?? `127.0.0.1:${env.TEMPORAL_PORT}`;
  const retentionDays = temporalRetentionDays(env);
  const result = await setupTemporalNamespace({
    connection: temporalConnectionOptions(env, address),
    namespace: env.TEMPORAL_NAMESPACE,
    retentionDays,
    log: options.json ? undefined : (line) => process.stderr.write(`[temporal] ${line}\n`),
  });
  printResult(
    options.json,
    { address, namespace: env.TEMPORAL_NAMESPACE, retention_days: retentionDays, ...result },
    [
      `Temporal at ${address}: namespace ${env.TEMPORAL_NAMESPACE} ready (retention ${retentionDays} d), ` +
        `search attributes registered${result.searchAttributesAdded.length ? ` (added ${result.searchAttributesAdded.join(', ')})` : ''}.`,
    ],
  );
}
