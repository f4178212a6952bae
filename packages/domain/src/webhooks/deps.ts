import type { SecretBox } from '../encryption/secret-box';
import type { LookupAll } from '../outbound-http/client';

/** What the webhook verbs need beyond the tenant context. */
export interface WebhookDeps {
  /** Encrypts signing secrets at rest (they must be readable to sign). */
  secrets: SecretBox;
  /** SSRF_ALLOWLIST: private ranges a webhook URL may point to (tests, private deployments). */
  ssrfAllowlist: readonly string[];
  /** DNS for the save-time SSRF check; tests inject a fake resolver. */
  lookup?: LookupAll;
}
