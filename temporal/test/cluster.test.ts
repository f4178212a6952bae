import { Connection } from '@temporalio/client';
import { SHARED_TEMPORAL_ENV } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupTemporalNamespace } from '../namespace-setup';
import { SEARCH_ATTRIBUTES } from '../shared';

// Runs in the cluster test run only (vitest.cluster.config.ts), against the server its set-up started.
const address = process.env[SHARED_TEMPORAL_ENV] ?? '';

describe('the production Temporal path', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await Connection.connect({ address });
  });
  afterAll(async () => {
    await connection?.close();
  });

  it('is temporal-server 1.32 on PostgreSQL persistence and SQL visibility with 4 history shards', async () => {
    const info = await connection.workflowService.getClusterInfo({});
    expect(info.serverVersion).toBe('1.32.0');
    expect(info.persistenceStore).toBe('postgres12');
    expect(info.visibilityStore).toBe('postgres12');
    expect(info.historyShardCount).toBe(4);
  });

  it('has the namespace and search attributes the set-up step registers, and the step is idempotent', async () => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    for (const key of Object.values(SEARCH_ATTRIBUTES))
      expect(Object.keys(customAttributes ?? {})).toContain(key.name);
    const again = await setupTemporalNamespace({
      connection: { address },
      namespace: 'default',
      retentionDays: 1,
    });
    expect(again).toEqual({ namespaceCreated: false, retentionUpdated: false, searchAttributesAdded: [] });
  });

  it('sets up a new namespace with its retention, and changes the retention of an existing one', async () => {
    const namespace = `weft-setup-${Date.now()}`;
    const created = await setupTemporalNamespace({ connection: { address }, namespace, retentionDays: 3 });
    expect(created.namespaceCreated).toBe(true);
    expect(created.searchAttributesAdded.sort()).toEqual(
      Object.values(SEARCH_ATTRIBUTES)
        .map((k) => k.name)
        .sort(),
    );
    const updated = await setupTemporalNamespace({ connection: { address }, namespace, retentionDays: 5 });
    expect(updated).toMatchObject({
      namespaceCreated: false,
      retentionUpdated: true,
      searchAttributesAdded: [],
    });
    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(5 * 86_400);
  });
});
