/**
 * The contract of a node type that runs in an activity (side effects): a `run` function that gets
 * its rendered config and the dependencies it may use, injected. Runners know nothing of Temporal:
 * they throw `NodeRunError` and the generic activity turns it into a retryable or final failure.
 */

/**
 * The outbound HTTP client runners get: the SSRF-guarded one of @weft/domain in production. Its
 * own failures are errors named `OutboundHttpError` with a string `code` (`timeout`, `ssrf_blocked`, ...).
 */
export interface NodeHttpClient {
  request(req: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    /** Headers holding a secret: never sent on to another origin after a redirect. */
    sensitiveHeaders?: readonly string[];
    body?: string | Uint8Array;
    timeoutMs: number;
    maxRedirects?: number;
  }): Promise<{ status: number; headers: Record<string, string>; body: Uint8Array }>;
}

/** What a runner may touch. Everything is scoped to the execution's organization by the caller. */
export interface NodeRunContext {
  organizationId: string;
  executionId: string;
  nodeId: string;
  /** `<execution_id>:<node_id>[:<loop_index>]`: stable across retries (DESIGN §12.1). */
  stepKey: string;
  /**
   * Upstream data, as much as the type's `reads` trait asks for (its workflow.ts): the trigger payload
   * alone, or with every node output and the loop item (stored outputs resolved).
   */
  input: { trigger?: unknown; nodes?: Record<string, unknown>; loop?: unknown };
  http: NodeHttpClient;
  /**
   * A credential of the organization, decrypted, if it is one of `types`; otherwise (or when it is
   * gone) a final `credential_invalid`. Its fields must never be returned as output.
   */
  openCredential(
    id: string,
    types: readonly string[],
  ): Promise<{ type: string; fields: Record<string, string> }>;
  /**
   * The message outbox of this step (DESIGN §12.1): `claim` before the provider call, `complete`
   * with the output after it, `release` when the provider refused before taking the message.
   */
  outbox: {
    claim(
      channel: 'email' | 'chat',
    ): Promise<{ state: 'claimed' } | { state: 'sent'; result: unknown } | { state: 'unknown' }>;
    complete(result: unknown): Promise<void>;
    release(error: string): Promise<void>;
  };
  /**
   * Sends one e-mail through the organization's SMTP module. Fails with an error named
   * `MailSendError` carrying `code`, `temporary` and `handedOver` (the server may have the message).
   */
  sendMail(
    module: Record<string, unknown>,
    message: {
      to: string[];
      cc: string[];
      bcc: string[];
      subject: string;
      text: string;
      html?: string;
      replyTo?: string;
      messageId: string;
    },
  ): Promise<{ message_id: string; accepted: string[]; rejected: string[] }>;
  /**
   * The organization's template of this name and language as last synced (synced once more first
   * when it is unknown); null when the provider does not have it either.
   */
  chatTemplate(name: string, language: string): Promise<{ status: string; bodyVariables: number } | null>;
  /** Whether the 24-hour window with this person (by phone hash) is open now. */
  chatWindow(phoneHash: string): Promise<{ open: boolean }>;
  /**
   * Sends one chat message through the organization's chat module. Fails with an error named
   * `ChatSendError` carrying `code`, `retryable`, `handedOver` and `retryAfterMs`.
   */
  sendChat(
    module: Record<string, unknown>,
    message: {
      to: string;
      text?: string;
      template?: { name: string; language: string; variables: string[] };
    },
  ): Promise<{ messageId: string }>;
  /** The organization's configuration of a module, secrets in clear; null when it has none. */
  openModule(module: 'chat' | 'email' | 'ai'): Promise<Record<string, unknown> | null>;
  publishEvent(
    event: string,
    payload: Record<string, unknown>,
  ): Promise<{ workflows_triggered: number; execution_ids: string[] }>;
}

/** A failure the node reports. `retryable: false` ends the step now; true lets the activity retry. */
export class NodeRunError extends Error {
  override readonly name = 'NodeRunError';

  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    /** Shown as the failed step's details (e.g. the HTTP answer that failed it). */
    readonly details?: unknown,
    /** For a retryable failure: wait this long before the next attempt (a provider's Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** How a node type that runs in an activity is called; its traits live in its workflow.ts (workflow code reads them). */
export interface NodeRunner {
  run(config: Record<string, unknown>, ctx: NodeRunContext): Promise<unknown>;
}
