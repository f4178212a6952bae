import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { CliEnv, loadEnv } from '@weft/config';
import { type RunningPostgres, startEmbeddedPostgres } from '@weft/db';
import { freePort } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterTls,
  findClusterBinaries,
  freeClusterPortRange,
  type RunningCluster,
  startCluster,
} from '../cluster';
import { type TemporalConnectionOptions, temporalConnectionOptions } from '../connection';
import { setupTemporalNamespace } from '../namespace-setup';
import { SEARCH_ATTRIBUTES } from '../shared';
import { createTestPki, type TestPki } from './tls-certs';

// Runs in the cluster test run only (vitest.cluster.config.ts): temporal-server 1.32 on its own
// PostgreSQL, started twice on the same database: TLS on the frontend, then mTLS.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const APP_KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;

/** The options every Weft process would build from these variables (the one place: temporal/connection.ts). */
function optionsFrom(address: string, vars: Record<string, string>): TemporalConnectionOptions {
  return temporalConnectionOptions(loadEnv(CliEnv, { APP_KEY, ...vars }), address);
}

async function systemInfo(options: TemporalConnectionOptions): Promise<string | undefined> {
  const connection = await Connection.connect({ ...options, connectTimeout: 5000 });
  try {
    const info = await connection.workflowService.getSystemInfo({});
    return info.serverVersion ?? undefined;
  } finally {
    await connection.close();
  }
}

/** The worker's connection (Rust core): connects, then answers a call. */
async function nativeSystemInfo(options: TemporalConnectionOptions): Promise<string | undefined> {
  const connection = await NativeConnection.connect(options);
  try {
    return (await connection.workflowService.getSystemInfo({})).serverVersion ?? undefined;
  } finally {
    await connection.close();
  }
}

describe('TLS and mTLS to temporal-server', () => {
  let dir: string;
  let pki: TestPki;
  let pg: RunningPostgres;
  let pgPort: number;
  let cluster: RunningCluster | undefined;

  const start = async (requireClientAuth: boolean) => {
    const binaries = findClusterBinaries(ROOT);
    if (!binaries) throw new Error('temporal-server is not built: run scripts/build-temporal-server.sh');
    const tls: ClusterTls = {
      caFile: pki.caFile,
      certFile: pki.serverCertFile,
      keyFile: pki.serverKeyFile,
      serverName: pki.serverName,
      requireClientAuth,
    };
    cluster = await startCluster({
      binaries,
      db: { host: '127.0.0.1', port: pgPort, user: 'postgres', password: 'weft-test-tls' },
      port: await freeClusterPortRange(),
      dynamicConfigFile: path.join(ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'),
      tls,
    });
    return cluster.address;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weft-test-cluster-tls-'));
    await chmod(dir, 0o755);
    pki = await createTestPki(dir);
    pgPort = await freePort();
    pg = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'pg'),
      port: pgPort,
      adminPassword: 'weft-test-tls',
      database: 'postgres',
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    await pg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('TLS: connects with the server CA (and the server name override), fails without the CA, a wrong name or TLS', async () => {
    const address = await start(false);
    const withCa = { TEMPORAL_TLS_CA_FILE: pki.caFile };
    expect(await systemInfo(optionsFrom(address, withCa))).toBe('1.32.0');
    expect(
      await systemInfo(
        optionsFrom(`localhost:${address.split(':')[1]}`, {
          ...withCa,
          TEMPORAL_TLS_SERVER_NAME: pki.serverName,
        }),
      ),
    ).toBe('1.32.0');
    expect(await nativeSystemInfo(optionsFrom(address, withCa))).toBe('1.32.0');
    // The system's CAs do not know the private CA.
    await expect(systemInfo(optionsFrom(address, { TEMPORAL_TLS: 'true' }))).rejects.toThrow();
    await expect(nativeSystemInfo(optionsFrom(address, { TEMPORAL_TLS: 'true' }))).rejects.toThrow();
    // A name the certificate does not carry.
    await expect(
      systemInfo(optionsFrom(address, { ...withCa, TEMPORAL_TLS_SERVER_NAME: 'other.weft.test' })),
    ).rejects.toThrow();
    await expect(systemInfo(optionsFrom(address, {}))).rejects.toThrow();
    await cluster?.stop();
    cluster = undefined;
  });

  it('mTLS: works with a client certificate from the CA, refused without one or with a stranger’s; `temporal setup` runs over it', async () => {
    const address = await start(true);
    const mtls = {
      TEMPORAL_TLS_CA_FILE: pki.caFile,
      TEMPORAL_TLS_CERT_FILE: pki.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: pki.clientKeyFile,
    };
    expect(await systemInfo(optionsFrom(address, mtls))).toBe('1.32.0');
    expect(await nativeSystemInfo(optionsFrom(address, mtls))).toBe('1.32.0');
    await expect(systemInfo(optionsFrom(address, { TEMPORAL_TLS_CA_FILE: pki.caFile }))).rejects.toThrow();
    await expect(
      nativeSystemInfo(optionsFrom(address, { TEMPORAL_TLS_CA_FILE: pki.caFile })),
    ).rejects.toThrow();
    await expect(
      systemInfo(
        optionsFrom(address, {
          TEMPORAL_TLS_CA_FILE: pki.caFile,
          TEMPORAL_TLS_CERT_FILE: pki.strangerCertFile,
          TEMPORAL_TLS_KEY_FILE: pki.strangerKeyFile,
        }),
      ),
    ).rejects.toThrow();
    // The deployment's one-shot step (`weft temporal setup`) over the same options.
    const result = await setupTemporalNamespace({
      connection: optionsFrom(address, mtls),
      namespace: 'weft-tls',
      retentionDays: 1,
      timeoutMs: 60_000,
    });
    expect(result.namespaceCreated).toBe(true);
    expect(result.searchAttributesAdded).toHaveLength(Object.keys(SEARCH_ATTRIBUTES).length);
  });
});
