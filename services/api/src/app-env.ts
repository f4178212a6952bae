import type { Caller } from '@weft/db';
import type { ExecutionEngine, SecretBox, ServiceContext } from '@weft/services';
import type { KnownKey } from './auth/api-key-cache';

/** Per-request values set by middleware and read by handlers. */
export interface AppEnv {
  Variables: {
    /** The key's organization and permissions, possibly from the cache (see `caller`). */
    auth: KnownKey;
    /** What PostgreSQL re-checks about the key during the request (packages/db/src/caller.ts). */
    caller: Caller;
    /** Drops the key's cache entry (its permissions proved stale). */
    forgetCachedKey: () => void;
    ctx: ServiceContext;
    engine: ExecutionEngine;
    temporalUiUrl: string;
    /** APP_URL: the origin of URLs the API hands out (webhook_url). */
    siteUrl: string;
    /** APP_KEY-derived encryption of stored secrets (credentials, hook and webhook secrets). */
    secrets: SecretBox;
  };
}
