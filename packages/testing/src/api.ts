import { randomBytes } from 'node:crypto';
import { createApp } from '@weft/api';
import { createApiKey, type PermissionGrant } from '@weft/domain';
import { registerCanary, registerRequestSecrets } from './canaries';
import { createTestDatabase, type TestDatabase } from './database';
import { createOrgWithKey } from './requests';

export interface TestApiOptions {
  ratePerKey?: number;
  ratePerOrg?: number;
  maxBodyBytes?: number;
  temporalReady?: () => Promise<boolean>;
  /** SSRF_ALLOWLIST for URLs checked at save (webhooks); default none. */
  ssrfAllowlist?: string[];
  /** Where the chat providers are: local fakes (CHAT_CLOUD_BASE_URL, CHAT_GATEWAY_BASE_URL). */
  chatCloudBaseUrl?: string;
  chatGatewayBaseUrl?: string;
  /** Further environment (sign-in settings, TRUST_PROXY_HOPS ...). */
  env?: Partial<Parameters<typeof createApp>[0]['env']>;
  /** APP_KEY (default: random) and APP_KEYS_PREVIOUS (default: none). */
  appKey?: Uint8Array;
  previousAppKeys?: Uint8Array[];
  /** The app's logger (default: the process's), for a test that reads the lines. */
  logger?: Parameters<typeof createApp>[0]['logger'];
}

type Requester = (
  method: string,
  path: string,
  options?: { key?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Response>;

export interface TestApi {
  db: TestDatabase;
  app: ReturnType<typeof createApp>;
  /** Sends a request to the app in-process (no socket), JSON-encoding `body` when it is an object. */
  request: Requester;
  /** The same API on the same database under another key ring (a replica started with other keys). */
  withKeys(appKey: Uint8Array, previousAppKeys?: Uint8Array[]): { request: Requester };
  /** A new organization with a key that holds `permissions` (default `*`). */
  createOrg(
    name?: string,
    permissions?: PermissionGrant[],
  ): Promise<{ organizationId: string; key: string; apiKeyId: string }>;
  keyFor(organizationId: string, permissions: PermissionGrant[]): Promise<string>;
  close(): Promise<void>;
}

export async function createTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const db = await createTestDatabase();
  const build = (appKey: Uint8Array, previousAppKeys: Uint8Array[] | undefined) =>
    createApp({
      db: db.app.db,
      env: {
        APP_URL: 'http://localhost:3000',
        MAX_BODY_BYTES: options.maxBodyBytes ?? 1024 * 1024,
        RATE_LIMIT_PER_KEY: options.ratePerKey ?? 100_000,
        RATE_LIMIT_PER_ORG: options.ratePerOrg ?? 100_000,
        TRUST_PROXY_HOPS: 0,
        ...(options.chatCloudBaseUrl ? { CHAT_CLOUD_BASE_URL: options.chatCloudBaseUrl } : {}),
        ...(options.chatGatewayBaseUrl ? { CHAT_GATEWAY_BASE_URL: options.chatGatewayBaseUrl } : {}),
        ...options.env,
      },
      temporalReady: options.temporalReady ?? (async () => true),
      appKey,
      previousAppKeys,
      ssrfAllowlist: options.ssrfAllowlist ?? [],
      ...(options.logger ? { logger: options.logger } : {}),
      logError: () => {},
    });
  const app = build(options.appKey ?? randomBytes(32), options.previousAppKeys);
  const requester =
    (target: ReturnType<typeof createApp>): Requester =>
    (method, path, { key, body, headers = {} } = {}) => {
      const init: RequestInit = { method, headers: { ...headers } };
      if (key) (init.headers as Record<string, string>)['X-Api-Key'] = key;
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
      }
      return Promise.resolve(target.request(path, init)).then(async (response) => {
        await registerRequestSecrets(path, body, response);
        return response;
      });
    };
  const keyFor = async (organizationId: string, permissions: PermissionGrant[]) => {
    const created = await createApiKey({
      ctx: { db: db.app.db, organizationId, actor: {} },
      input: { name: 'test key', permissions },
    });
    registerCanary('api_key', created.key);
    return created.key;
  };
  return {
    db,
    app,
    request: requester(app),
    withKeys: (appKey, previousAppKeys) => ({ request: requester(build(appKey, previousAppKeys)) }),
    createOrg: (name = 'Acme', permissions = ['*']) => createOrgWithKey(db.app.db, name, permissions),
    keyFor,
    close: () => db.drop(),
  };
}
