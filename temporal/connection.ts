import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { TemporalConnectionEnv } from '@weft/config';

/**
 * The one place that turns the TEMPORAL_* connection settings (packages/config, docs/temporal-tls.md)
 * into options for `Connection.connect` (API, CLI, bench) and `NativeConnection.connect` (worker):
 * both take the same `address`, `tls`, `apiKey` and `metadata`.
 */
export interface TemporalConnectionOptions {
  address: string;
  /** Absent: plaintext. */
  tls?: TLSConfig;
  apiKey?: string;
  /** Temporal Cloud routes API-key calls by this header. */
  metadata?: Record<string, string>;
}

export type TemporalConnectionSettings = TemporalConnectionEnv & { TEMPORAL_NAMESPACE: string };

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(
      `${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

/** Whether the settings ask for TLS (config has already refused TEMPORAL_TLS=false with any of them). */
export function temporalUsesTls(env: TemporalConnectionEnv): boolean {
  if (env.TEMPORAL_TLS !== undefined) return env.TEMPORAL_TLS;
  return Boolean(
    env.TEMPORAL_TLS_CA_FILE ||
      env.TEMPORAL_TLS_CERT_FILE ||
      env.TEMPORAL_TLS_SERVER_NAME ||
      env.TEMPORAL_API_KEY,
  );
}

/**
 * Connection options for `address` under these settings. Reads the PEM files now (once per
 * connection, at start-up), so a missing file fails the process at once with the variable's name.
 */
export function temporalConnectionOptions(
  env: TemporalConnectionSettings,
  address: string,
): TemporalConnectionOptions {
  const options: TemporalConnectionOptions = { address };
  if (temporalUsesTls(env)) {
    const tls: TLSConfig = {};
    if (env.TEMPORAL_TLS_CA_FILE)
      tls.serverRootCACertificate = readPem('TEMPORAL_TLS_CA_FILE', env.TEMPORAL_TLS_CA_FILE);
    if (env.TEMPORAL_TLS_CERT_FILE && env.TEMPORAL_TLS_KEY_FILE)
      tls.clientCertPair = {
        crt: readPem('TEMPORAL_TLS_CERT_FILE', env.TEMPORAL_TLS_CERT_FILE),
        key: readPem('TEMPORAL_TLS_KEY_FILE', env.TEMPORAL_TLS_KEY_FILE),
      };
    if (env.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = env.TEMPORAL_TLS_SERVER_NAME;
    options.tls = tls;
  }
  if (env.TEMPORAL_API_KEY) {
    options.apiKey = env.TEMPORAL_API_KEY;
    options.metadata = { 'temporal-namespace': env.TEMPORAL_NAMESPACE };
  }
  return options;
}

/**
 * The connection settings blanked, for the services of a command that starts its own plaintext
 * Temporal on loopback (`weft up` without TEMPORAL_ADDRESS, the benches, chaos runs): settings meant
 * for a production Temporal in the project's .env must not reach them.
 */
export const PLAINTEXT_TEMPORAL_ENV = {
  TEMPORAL_TLS: '',
  TEMPORAL_TLS_CA_FILE: '',
  TEMPORAL_TLS_CERT_FILE: '',
  TEMPORAL_TLS_KEY_FILE: '',
  TEMPORAL_TLS_SERVER_NAME: '',
  TEMPORAL_API_KEY: '',
} as const satisfies Record<keyof TemporalConnectionEnv, string>;
