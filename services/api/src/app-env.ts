import type { Caller } from '@weft/db';
import type {
  AccountsDeps,
  ChatProviderDeps,
  ExecutionEngine,
  SecretBox,
  ServiceContext,
  WebSession,
} from '@weft/domain';
import type { KnownKey } from './auth/api-key-cache';

/** What routes that call a provider or a tenant's URL need: a chat provider's deps, secrets, the allowlist. */
export type OutboundProviders = ChatProviderDeps & {
  gatewayContentBaseUrl: string;
  secrets: SecretBox;
  ssrfAllowlist: readonly string[];
};

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
    /** TRUST_PROXY_HOPS: how many X-Forwarded-For entries to skip to find the client's address. */
    trustedProxyHops: number;
    /** SSRF_ALLOWLIST (parsed): private ranges outbound URLs may point to. */
    ssrfAllowlist: readonly string[];
    /** The chat providers and the SSRF-guarded HTTP client (created on first use). */
    providers: () => OutboundProviders;
  };
}
