import type { Caller } from '@weft/db';
import type { AccountsDeps, ExecutionEngine, SecretBox, ServiceContext, WebSession } from '@weft/domain';
import type { KnownKey } from './auth/api-key-cache';

/** Per-request values set by middleware and read by handlers. */
export interface AppEnv {
  Variables: {
    /**
     * Who is calling: an API key (organization and permissions possibly from the cache, see `caller`)
     * or a browser session (`userId` set, `apiKeyId` empty, permissions from the user's role).
     */
    auth: KnownKey & { userId?: string };
    /** The browser session, for requests signed in with the session cookie. */
    session?: WebSession;
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
    /** Sign-in, sessions and account verbs (web users). */
    accounts: AccountsDeps;
    /** APP_KEY, for the sessions' CSRF tokens. */
    appKey?: Uint8Array;
  };
}
