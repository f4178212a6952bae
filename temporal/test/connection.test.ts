import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createSecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ApiEnv, CliEnv, EnvError, loadEnv, WorkerEnv } from '@weft/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../connection';
import { createTestPki, type TestPki } from './tls-certs';

const APP_KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;

describe('Temporal connection settings', () => {
  let dir: string;
  let pki: TestPki;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weft-temporal-tls-'));
    pki = await createTestPki(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a client certificate without its key (and the reverse) in every service, naming the variable', () => {
    for (const schema of [ApiEnv, WorkerEnv, CliEnv]) {
      expect(() => loadEnv(schema, { APP_KEY, TEMPORAL_TLS_CERT_FILE: pki.clientCertFile })).toThrow(
        /TEMPORAL_TLS_KEY_FILE: is required with TEMPORAL_TLS_CERT_FILE/,
      );
      expect(() => loadEnv(schema, { APP_KEY, TEMPORAL_TLS_KEY_FILE: pki.clientKeyFile })).toThrow(
        /TEMPORAL_TLS_CERT_FILE: is required with TEMPORAL_TLS_KEY_FILE/,
      );
    }
  });

  it('refuses TEMPORAL_TLS=false with settings that need TLS, and accepts the working combinations', () => {
    expect(() => loadEnv(ApiEnv, { APP_KEY, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toThrow(
      /TEMPORAL_TLS: is false but TEMPORAL_API_KEY need TLS/,
    );
    expect(() => loadEnv(WorkerEnv, { APP_KEY, TEMPORAL_TLS: 'maybe' })).toThrow(EnvError);
    const env = loadEnv(WorkerEnv, {
      APP_KEY,
      TEMPORAL_TLS_CA_FILE: pki.caFile,
      TEMPORAL_TLS_CERT_FILE: pki.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: pki.clientKeyFile,
      TEMPORAL_TLS_SERVER_NAME: pki.serverName,
      TEMPORAL_TLS: '',
    });
    expect(env.TEMPORAL_TLS).toBeUndefined();
    expect(env.TEMPORAL_TLS_SERVER_NAME).toBe(pki.serverName);
  });

  it('builds plaintext options without settings, and TLS options from the files', async () => {
    const plain = temporalConnectionOptions(loadEnv(ApiEnv, { APP_KEY }), 'temporal:7233');
    expect(plain).toEqual({ address: 'temporal:7233' });
    const env = loadEnv(CliEnv, {
      APP_KEY,
      TEMPORAL_TLS_CA_FILE: pki.caFile,
      TEMPORAL_TLS_CERT_FILE: pki.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: pki.clientKeyFile,
      TEMPORAL_TLS_SERVER_NAME: pki.serverName,
    });
    const options = temporalConnectionOptions(env, '127.0.0.1:7233');
    expect(options.tls?.serverNameOverride).toBe(pki.serverName);
    expect(Buffer.from(options.tls?.serverRootCACertificate ?? []).toString()).toBe(
      await readFile(pki.caFile, 'utf8'),
    );
    expect(Buffer.from(options.tls?.clientCertPair?.key ?? []).toString()).toBe(
      await readFile(pki.clientKeyFile, 'utf8'),
    );
    expect(options.apiKey).toBeUndefined();
    // TEMPORAL_TLS=true alone: TLS with the system's CAs.
    expect(temporalConnectionOptions(loadEnv(ApiEnv, { APP_KEY, TEMPORAL_TLS: 'true' }), 'a:1').tls).toEqual(
      {},
    );
  });

  it('names the variable of a PEM file it cannot read', () => {
    const env = loadEnv(ApiEnv, { APP_KEY, TEMPORAL_TLS_CA_FILE: path.join(dir, 'missing.pem') });
    expect(() => temporalConnectionOptions(env, 'a:1')).toThrow(
      /TEMPORAL_TLS_CA_FILE: cannot read .*missing\.pem \(ENOENT\)/,
    );
  });

  // Temporal Cloud cannot be reached from here: what can be checked is that the API key reaches the
  // wire, over TLS, with the namespace header Cloud routes by, from both kinds of connection.
  it('sends TEMPORAL_API_KEY as a bearer token with the namespace header, over TLS, from client and worker connections', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createSecureServer({
      cert: await readFile(pki.serverCertFile),
      key: await readFile(pki.serverKeyFile),
      allowHTTP1: false,
    });
    server.on('stream', (stream, headers) => {
      seen.push(headers);
      // A gRPC "unauthenticated" answer: enough for the client to have sent its request.
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16' },
        { endStream: true },
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const env = loadEnv(WorkerEnv, {
        APP_KEY,
        TEMPORAL_NAMESPACE: 'weft-prod.a1b2c',
        TEMPORAL_API_KEY: 'test-api-key',
        TEMPORAL_TLS_CA_FILE: pki.caFile,
        TEMPORAL_TLS_SERVER_NAME: pki.serverName,
      });
      const options = temporalConnectionOptions(env, `127.0.0.1:${port}`);
      await expect(Connection.connect({ ...options, connectTimeout: 3000 })).rejects.toThrow();
      await expect(NativeConnection.connect(options)).rejects.toThrow();
      expect(seen.length).toBeGreaterThanOrEqual(2);
      for (const headers of seen) {
        expect(headers.authorization).toBe('Bearer test-api-key');
        expect(headers['temporal-namespace']).toBe('weft-prod.a1b2c');
      }
    } finally {
      server.close();
    }
  });
});
