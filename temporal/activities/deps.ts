import type { Database } from '@weft/db';
import type { createOutboundHttpClient, ExecutionEngine, SecretBox } from '@weft/domain';

/** What the worker gives its activities (samples-typescript style: dependencies in, activities out). */
export interface ActivityDeps {
  db: Database;
  engine: ExecutionEngine & { startDirect(organizationId: string, executionIds: string[]): Promise<void> };
  http: ReturnType<typeof createOutboundHttpClient>;
  /** Node outputs whose JSON is larger are stored in PostgreSQL and passed by reference. */
  outputInlineLimitBytes?: number;
  /** APP_KEY-derived encryption of stored secrets (credentials, modules, webhook signing secrets). */
  secrets: SecretBox;
  /** SSRF_ALLOWLIST: private ranges outbound targets may be in (also SMTP hosts). */
  ssrfAllowlist?: readonly string[];
  /** CHAT_CLOUD_BASE_URL / CHAT_GATEWAY_BASE_URL: the chat providers (local fakes in tests). */
  chatCloudBaseUrl?: string;
  chatGatewayBaseUrl?: string;
  chatGatewayContentBaseUrl?: string;
  /** APP_URL: links in messages (signed approval links) point here. */
  siteUrl?: string;
}
