import { describe, expect, it } from 'vitest';
import { clusterPorts, freeClusterPortRange, MAX_CLUSTER_PORT } from './cluster';

describe('ports of temporal-server', () => {
  it('picks ranges whose every port fits the smallint column temporal-server stores them in', async () => {
    // A range above 32,767 made the cluster test run fail at start-up (22003 in UpsertClusterMembership).
    for (let i = 0; i < 25; i++) {
      const base = await freeClusterPortRange();
      const ports = Object.values(clusterPorts(base)).map(Number);
      expect(Math.max(...ports)).toBeLessThanOrEqual(MAX_CLUSTER_PORT);
      expect(Math.min(...ports)).toBeGreaterThanOrEqual(20_000);
    }
  });
});
