import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
// The package is CommonJS: a default import works from Node's ESM loader and from the bundlers alike.
import proto, { type temporal } from '@temporalio/proto';
import type { TemporalConnectionOptions } from './connection';
import { SEARCH_ATTRIBUTES } from './shared';

/**
 * The one-shot step every deployment runs before the API and workers start (`weft temporal setup`;
 * `weft up` calls it too, and docker-compose.yml runs it as the `temporal-setup` job): the namespace
 * exists with the retention asked for, and Weft's search attributes (WeftOrgId, WeftWorkflowId,
 * WeftTrigger) are registered. Without them every execution start is refused. Idempotent.
 */
export interface NamespaceSetupOptions {
  /** From temporalConnectionOptions (TLS, API key), or `{ address }` for a local plaintext server. */
  connection: TemporalConnectionOptions;
  namespace: string;
  /** How long Temporal keeps a closed execution's history (at least 1 day). */
  retentionDays: number;
  /** How long to wait for a server that is still starting. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface NamespaceSetupResult {
  namespaceCreated: boolean;
  retentionUpdated: boolean;
  searchAttributesAdded: string[];
}

const NOT_FOUND = 5;
const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

function grpcCode(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? Number(error.code) : undefined;
}

async function connectWithin(options: TemporalConnectionOptions, deadline: number): Promise<Connection> {
  for (;;) {
    try {
      const connection = await Connection.connect({ ...options, connectTimeout: 2000 });
      await connection.workflowService.getSystemInfo({});
      return connection;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`Temporal did not answer on ${options.address}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Polls `check` until it passes: a new namespace or attribute reaches the frontend's caches a few seconds later. */
async function until(check: () => Promise<boolean>, deadline: number, what: string): Promise<void> {
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Temporal: ${what} did not become visible in time`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function setupTemporalNamespace(options: NamespaceSetupOptions): Promise<NamespaceSetupResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const retentionSeconds = Math.max(1, options.retentionDays) * 86_400;
  const connection = await connectWithin(options.connection, deadline);
  const result: NamespaceSetupResult = {
    namespaceCreated: false,
    retentionUpdated: false,
    searchAttributesAdded: [],
  };
  try {
    const { namespace } = options;
    let described: temporal.api.workflowservice.v1.DescribeNamespaceResponse | undefined;
    try {
      described = await connection.workflowService.describeNamespace({ namespace });
    } catch (error) {
      if (grpcCode(error) !== NOT_FOUND) throw error;
    }
    if (!described) {
      await connection.workflowService.registerNamespace({
        namespace,
        description: 'Weft executions',
        workflowExecutionRetentionPeriod: msToTs(retentionSeconds * 1000),
      });
      result.namespaceCreated = true;
      options.log?.(`created namespace ${namespace} (retention ${options.retentionDays} d)`);
    } else if (Number(described.config?.workflowExecutionRetentionTtl?.seconds ?? 0) !== retentionSeconds) {
      await connection.workflowService.updateNamespace({
        namespace,
        config: { workflowExecutionRetentionTtl: msToTs(retentionSeconds * 1000) },
      });
      result.retentionUpdated = true;
      options.log?.(`namespace ${namespace}: retention set to ${options.retentionDays} d`);
    }
    // Wait for the namespace to be usable: the frontend serves it from a cache refreshed every few seconds.
    await until(
      async () => {
        await connection.workflowService.countWorkflowExecutions({ namespace });
        return true;
      },
      deadline,
      `namespace ${namespace}`,
    );

    const wanted = Object.values(SEARCH_ATTRIBUTES).map((key) => key.name);
    const listed = async () =>
      (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
    const existing = await listed();
    const missing = wanted.filter((name) => !(name in existing));
    if (missing.length > 0) {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
      });
      result.searchAttributesAdded = missing;
      options.log?.(`registered search attributes ${missing.join(', ')}`);
    }
    await until(
      async () => {
        const now = await listed();
        return wanted.every((name) => name in now);
      },
      deadline,
      'search attributes',
    );
    return result;
  } finally {
    await connection.close();
  }
}
