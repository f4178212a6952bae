import { z } from 'zod';
import { HeaderName, HeaderValue } from '../common';
import type { NodeRunner } from '../runner';
import { NodeRunError } from '../runner';
import { credentialHeaders, HTTP_AUTH_CREDENTIAL_TYPES } from './credential-headers';
import { HttpRequestConfig } from './schema';

/**
 * The config as run: like the saved one, except that header names holding secrets, refused at save
 * since credentials exist, still go out for workflows saved before (until they are moved).
 */
const HttpRequestRunConfig = HttpRequestConfig.extend({
  headers: z.record(HeaderName, HeaderValue).optional(),
});

const textDecoder = new TextDecoder();

/** Client errors worth another try: the target may answer next time. */
const RETRYABLE_CLIENT_CODES = new Set(['timeout', 'network_error']);

/** An error of the guarded client itself (refused target, timeout, ...); anything else is unexpected. */
function isClientRefusal(error: unknown): error is Error & { code: string } {
  return (
    error instanceof Error &&
    error.name === 'OutboundHttpError' &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/** action.http_request through the SSRF-guarded client. The step key doubles as Idempotency-Key. */
export const httpRequestRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = HttpRequestRunConfig.parse(rawConfig);
    const url = new URL(config.url);
    for (const [name, value] of Object.entries(config.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { ...(config.headers ?? {}) };
    let body: string | undefined;
    if (config.body !== undefined && config.method !== 'GET' && config.method !== 'HEAD') {
      body = typeof config.body === 'string' ? config.body : JSON.stringify(config.body);
      if (
        typeof config.body !== 'string' &&
        !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
      ) {
        headers['content-type'] = 'application/json';
      }
    }
    let sensitiveHeaders: string[] = [];
    if (config.credential_id !== undefined) {
      const credential = await ctx.openCredential(config.credential_id, HTTP_AUTH_CREDENTIAL_TYPES);
      // A plain header of the same name is replaced, whatever its case.
      const added = credentialHeaders(credential);
      for (const name of Object.keys(headers)) if (name.toLowerCase() in added) delete headers[name];
      Object.assign(headers, added);
      sensitiveHeaders = Object.keys(added);
    }
    if (config.send_idempotency_key && config.method !== 'GET' && config.method !== 'HEAD') {
      headers['idempotency-key'] = ctx.stepKey;
    }
    const response = await ctx.http
      .request({
        method: config.method,
        url: url.toString(),
        headers,
        sensitiveHeaders,
        body,
        timeoutMs: config.timeout_ms,
        maxRedirects: 5,
      })
      .catch((error: unknown) => {
        if (!isClientRefusal(error)) throw error;
        const { code } = error;
        // A refused or malformed target stays refused; only timeouts and network errors may pass.
        throw new NodeRunError(code, error.message, RETRYABLE_CLIENT_CODES.has(code));
      });
    const text = textDecoder.decode(response.body);
    let parsed: unknown = text;
    if ((response.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const output = { status: response.status, headers: response.headers, body: parsed };
    if (config.fail_on_status && (response.status < 200 || response.status > 299)) {
      // Server errors and rate limits may pass; other client errors will not, so retrying is waste.
      const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
      throw new NodeRunError('http_status', `HTTP ${response.status} from ${url.host}`, retryable, output);
    }
    return output;
  },
};
