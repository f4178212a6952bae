import { isIP } from 'node:net';
import { createTransport } from 'nodemailer';
import type { VerbArgs } from '../context';
import type { SecretBox } from '../encryption';
import { AppError } from '../errors';
import type { OutboundHttpClient } from '../outbound-http/client';
import { OutboundHttpError } from '../outbound-http/errors';
import { resolveAllowedHost } from '../outbound-http/resolve-host';
import type { ModuleName } from './module-config';
import { openModuleConfig } from './module-store';

export interface ModuleCheckDeps {
  secrets: SecretBox;
  /** The SSRF-guarded client: an AI base URL is tenant input. */
  http: OutboundHttpClient;
  chatCloudBaseUrl: string;
  chatGatewayBaseUrl: string;
  /** SSRF_ALLOWLIST: the SMTP host is checked like any outbound target. */
  ssrfAllowlist: readonly string[];
}

export type ModuleCheckFailure = 'authentication_failed' | 'not_found' | 'unreachable' | 'provider_error';

export interface ModuleCheck {
  ok: boolean;
  /** What was checked and what the provider said, for a person; never a secret. */
  message: string;
  code?: ModuleCheckFailure;
}

/**
 * A person waits on this (the module page's Test button): the answer, "unreachable" included, must
 * come back well inside the 10 s that clients and proxies commonly allow a request.
 */
const CHECK_TIMEOUT_MS = 6_000;

/**
 * POST /modules/{name}/test: checks the stored configuration against the provider without messaging
 * anyone: the sending phone number (chat), an SMTP login and NOOP (e-mail), the model list (AI).
 * A provider that refuses is an answer (`ok: false` with a code), not an error of this request.
 */
export async function checkModule({
  ctx,
  input,
  deps,
}: VerbArgs<{ module: ModuleName }> & { deps: ModuleCheckDeps }): Promise<ModuleCheck> {
  const config = await openModuleConfig(ctx.db, deps.secrets, ctx.organizationId, input.module);
  if (!config) throw new AppError('not_found', `The ${input.module} module is not configured`);
  switch (input.module) {
    case 'chat':
      return config.provider === 'cloud' ? checkChatCloud(config, deps) : checkChatGateway(config, deps);
    case 'email':
      return checkSmtp(config, deps.ssrfAllowlist);
    case 'ai':
      return checkAi(config, deps);
  }
}

async function httpCheck(
  deps: ModuleCheckDeps,
  what: string,
  request: { url: string; headers: Record<string, string> },
): Promise<ModuleCheck> {
  try {
    const response = await deps.http.request({ method: 'GET', ...request, timeoutMs: CHECK_TIMEOUT_MS });
    if (response.status >= 200 && response.status < 300) return { ok: true, message: `${what}: accepted` };
    const code: ModuleCheckFailure =
      response.status === 401 || response.status === 403
        ? 'authentication_failed'
        : response.status === 404
          ? 'not_found'
          : 'provider_error';
    return { ok: false, code, message: `${what}: the provider answered HTTP ${response.status}` };
  } catch (error) {
    if (error instanceof OutboundHttpError) {
      return { ok: false, code: 'unreachable', message: `${what}: ${error.message}` };
    }
    throw error;
  }
}

function checkChatCloud(config: Record<string, unknown>, deps: ModuleCheckDeps) {
  const url = new URL(`/v21.0/${encodeURIComponent(String(config.phone_number_id))}`, deps.chatCloudBaseUrl);
  url.searchParams.set('fields', 'display_phone_number,verified_name');
  return httpCheck(deps, `cloud phone number ${config.phone_number_id}`, {
    url: url.toString(),
    headers: { authorization: `Bearer ${config.access_token}` },
  });
}

function checkChatGateway(config: Record<string, unknown>, deps: ModuleCheckDeps) {
  const sid = String(config.account_sid);
  const basic = Buffer.from(`${sid}:${config.auth_token}`).toString('base64');
  return httpCheck(deps, `gateway account ${sid}`, {
    url: new URL(`/2010-04-01/Accounts/${encodeURIComponent(sid)}.json`, deps.chatGatewayBaseUrl).toString(),
    headers: { authorization: `Basic ${basic}` },
  });
}

function checkAi(config: Record<string, unknown>, deps: ModuleCheckDeps) {
  const base = String(config.base_url).replace(/\/+$/, '');
  const anthropic = config.provider === 'anthropic';
  return httpCheck(deps, `${config.provider} model list`, {
    url: anthropic ? `${base}/v1/models` : `${base}/models`,
    headers: anthropic
      ? { 'x-api-key': String(config.api_key), 'anthropic-version': '2023-06-01' }
      : { authorization: `Bearer ${config.api_key}` },
  });
}

async function checkSmtp(
  config: Record<string, unknown>,
  allowlist: readonly string[],
): Promise<ModuleCheck> {
  const what = `SMTP ${config.host}:${config.port}`;
  let address: string;
  try {
    address = await resolveAllowedHost(String(config.host), allowlist);
  } catch (error) {
    if (!(error instanceof OutboundHttpError)) throw error;
    return { ok: false, code: 'unreachable', message: `${what}: ${error.message}` };
  }
  const transport = createTransport({
    // The checked address, with the name kept for TLS certificate checks.
    host: address,
    tls: isIP(String(config.host)) === 0 ? { servername: String(config.host) } : {},
    port: Number(config.port),
    secure: config.security === 'tls',
    requireTLS: config.security === 'starttls',
    ignoreTLS: config.security === 'none',
    auth: config.username
      ? { user: String(config.username), pass: String(config.password ?? '') }
      : undefined,
    connectionTimeout: CHECK_TIMEOUT_MS,
    greetingTimeout: CHECK_TIMEOUT_MS,
    socketTimeout: CHECK_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return { ok: true, message: `${what}: connected${config.username ? ' and logged in' : ''}` };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const auth = code === 'EAUTH';
    return {
      ok: false,
      code: auth ? 'authentication_failed' : 'unreachable',
      message: `${what}: ${auth ? 'the login was refused' : (error as Error).message}`,
    };
  } finally {
    transport.close();
  }
}
