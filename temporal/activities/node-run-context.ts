import {
  CredentialUnusableError,
  chatWindow,
  claimOutboxMessage,
  completeOutboxMessage,
  findChatTemplate,
  openCredential,
  openModuleConfig,
  publishEvent,
  releaseOutboxMessage,
  sendChatMessage,
  sendMail,
  syncChatTemplates,
} from '@weft/domain';
import { type NodeHttpClient, type NodeRunContext, NodeRunError } from '@weft/nodes/runners';
import { isSecretName, rememberSecrets } from '@weft/telemetry';
import type { ActivityDeps } from './deps';

/** An event raised by a running execution, inside its organization (its executions name it as parent). */
export async function publishFromExecution(
  deps: ActivityDeps,
  args: { organizationId: string; executionId: string; event: string; payload: Record<string, unknown> },
) {
  const result = await publishEvent({
    ctx: { db: deps.db, organizationId: args.organizationId, actor: {} },
    input: { event: args.event, payload: args.payload },
    engine: deps.engine,
    trigger: 'event',
    parentExecutionId: args.executionId,
  });
  return { workflows_triggered: result.workflows_triggered, execution_ids: result.execution_ids };
}

/** The client, marking `names` as secret on every request (dropped on a cross-origin redirect). */
function withSensitiveHeaders(http: NodeHttpClient, names: readonly string[]): NodeHttpClient {
  if (names.length === 0) return http;
  return {
    request: (req) => http.request({ ...req, sensitiveHeaders: [...(req.sensitiveHeaders ?? []), ...names] }),
  };
}

/** The chat providers' base URLs (local fakes in tests). */
function chatProviders(deps: ActivityDeps) {
  return {
    http: deps.http,
    cloudBaseUrl: deps.chatCloudBaseUrl ?? 'https://graph.facebook.com',
    gatewayBaseUrl: deps.chatGatewayBaseUrl ?? 'https://api.twilio.com',
    gatewayContentBaseUrl: deps.chatGatewayContentBaseUrl ?? 'https://content.twilio.com',
  };
}

/**
 * What a runner may touch (NodeRunContext), wired to the worker's dependencies and scoped to the
 * execution's organization: the outbox of its step, the modules, credentials, templates, events.
 */
export function createNodeRunContext(
  deps: ActivityDeps,
  args: {
    organizationId: string;
    executionId: string;
    nodeId: string;
    stepKey: string;
    input: NodeRunContext['input'];
    /** Headers of the config rendered from `{{credentials.…}}`. */
    sensitiveHeaders?: readonly string[];
  },
): NodeRunContext {
  const outboxRef = { organizationId: args.organizationId, stepKey: args.stepKey };
  const ctx: NodeRunContext = {
    organizationId: args.organizationId,
    executionId: args.executionId,
    nodeId: args.nodeId,
    stepKey: args.stepKey,
    input: args.input,
    http: withSensitiveHeaders(deps.http, args.sensitiveHeaders ?? []),
    outbox: {
      claim: (channel) => claimOutboxMessage(deps.db, { ...outboxRef, channel }),
      complete: (result) => completeOutboxMessage(deps.db, outboxRef, result),
      release: (error) => releaseOutboxMessage(deps.db, outboxRef, error),
    },
    sendMail: (module, message) => sendMail(module, message, deps.ssrfAllowlist ?? []),
    chatTemplate: async (name, language) => {
      const known = await findChatTemplate(deps.db, ctx.organizationId, name, language);
      if (known) return known;
      // Unknown here: it may have been created since the last sync. Sync once before refusing.
      await syncChatTemplates(deps.db, { ...chatProviders(deps), secrets: deps.secrets }, ctx.organizationId);
      return findChatTemplate(deps.db, ctx.organizationId, name, language);
    },
    chatWindow: (phoneHash) => chatWindow(deps.db, { organizationId: ctx.organizationId, phoneHash }),
    sendChat: (module, message) => sendChatMessage(chatProviders(deps), module, message),
    openModule: async (module) => {
      const config = await openModuleConfig(deps.db, deps.secrets, ctx.organizationId, module);
      // An upstream that echoes a module's secret back cannot put it in a log line (see redact.ts).
      if (config) rememberSecrets(Object.entries(config).flatMap(([k, v]) => (isSecretName(k) ? [v] : [])));
      return config;
    },
    openCredential: async (credentialId, allowedTypes) => {
      try {
        const credential = await openCredential(deps.db, deps.secrets, {
          organizationId: ctx.organizationId,
          credentialId,
          allowedTypes,
        });
        // Every field but a header's name and a username is secret: an echo of one in an
        // upstream's answer or error is redacted from every log line of this process.
        rememberSecrets(
          Object.entries(credential.fields).flatMap(([k, v]) =>
            k === 'name' || k === 'username' ? [] : [v],
          ),
        );
        return { type: credential.type, fields: credential.fields };
      } catch (error) {
        if (error instanceof CredentialUnusableError)
          throw new NodeRunError(error.code, error.message, false);
        throw error;
      }
    },
    publishEvent: (event, payload) =>
      publishFromExecution(deps, {
        organizationId: ctx.organizationId,
        executionId: args.executionId,
        event,
        payload,
      }),
  };
  return ctx;
}
