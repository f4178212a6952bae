import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isBlockedAddress, isBlockedHostname, parseAllowlist } from './address-policy';
import { OutboundHttpError } from './errors';
import {
  checkMethod,
  checkOutboundHeaders,
  isRedirect,
  parseOutboundUrl,
  redirectedRequest,
  redirectTarget,
} from './request-policy';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every A/AAAA record. */
export type LookupAll = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface OutboundHttpOptions {
  /** CIDRs that are allowed even though private (SSRF_ALLOWLIST, comma-separated in env); tests use 127.0.0.0/8. */
  allowlist: string[];
  /** DNS resolution; default `dns.promises.lookup(host, { all: true })`. Tests inject a fake resolver. */
  lookup?: LookupAll;
}

export interface OutboundRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /**
   * Names of headers that carry a secret (set from a credential or from `{{credentials.…}}`): never
   * sent to another origin after a redirect, like Authorization and the other well-known ones.
   */
  sensitiveHeaders?: readonly string[];
  body?: string | Uint8Array;
  /** The whole request, including every redirect and reading the body. */
  timeoutMs: number;
  /** Default 10 MiB; a larger response is an `OutboundHttpError` with code `response_too_large`. */
  maxResponseBytes?: number;
  /** Default 0: a 3xx is returned as is (webhook delivery never follows). The HTTP node passes 5. */
  maxRedirects?: number;
  /** Cancels the request (e.g. a Temporal activity's cancellation signal); its reason is thrown. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The raw bytes as sent: never decompressed, so a gzip bomb stays at most maxResponseBytes. */
  body: Uint8Array;
  /** The final URL, after redirects. */
  url: string;
}

export interface OutboundHttpClient {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /** Ends every connection; requests still in flight fail with `network_error`. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS_LIMIT = 20;

const systemLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true });

function ssrfBlocked(hostname: string): OutboundHttpError {
  // The resolved address is deliberately not named: it would let a tenant map internal DNS.
  return new OutboundHttpError(
    'ssrf_blocked',
    `Requests to ${hostname} are not allowed: it is or resolves to a private, local or reserved address`,
  );
}

/** The URL's hostname without IPv6 brackets, e.g. `[::1]` -> `::1`. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Every address `hostname` stands for, each checked against the policy. One blocked address refuses
 * the whole host: a name with a public and a private record must not reach the private one.
 */
async function resolveChecked(
  hostname: string,
  allowlist: readonly string[],
  lookup: LookupAll,
): Promise<string[]> {
  if (isBlockedHostname(hostname)) throw ssrfBlocked(hostname);
  const host = bareHost(hostname);
  if (isIP(host) !== 0) {
    if (isBlockedAddress(host, allowlist)) throw ssrfBlocked(hostname);
    return [host];
  }
  let records: readonly ResolvedAddress[];
  try {
    // A trailing dot (localhost.) is the same name; the resolver here would not find it otherwise.
    records = await lookup(host.endsWith('.') ? host.slice(0, -1) : host);
  } catch (error) {
    throw new OutboundHttpError('network_error', `Could not resolve ${hostname}`, { cause: error });
  }
  if (records.length === 0) throw new OutboundHttpError('network_error', `Could not resolve ${hostname}`);
  if (records.some((record) => isBlockedAddress(record.address, allowlist))) throw ssrfBlocked(hostname);
  return records.map((record) => record.address);
}

/**
 * An undici connector that resolves and checks the host itself and then dials the checked address,
 * never the name, so DNS rebinding between check and connect is impossible and literal IPs (which
 * undici's `connect.lookup` never sees) are checked too. The Host header comes from the request's
 * origin and the TLS server name from the original host, so virtual hosts and certificates still work.
 */
function createGuardedConnector(allowlist: readonly string[], lookup: LookupAll): buildConnector.connector {
  const connect = buildConnector({});
  return (options, callback) => {
    const dial = (addresses: readonly string[], index: number, lastError: Error | undefined): void => {
      const address = addresses[index];
      if (address === undefined) {
        callback(lastError ?? new OutboundHttpError('network_error', 'No address to connect to'), null);
        return;
      }
      try {
        connect({ ...options, hostname: address }, (...result) => {
          if (result[0] === null) callback(...result);
          // Every address passed the check, so trying the next one (say 127.0.0.1 after ::1) is safe.
          else dial(addresses, index + 1, result[0]);
        });
      } catch (error) {
        dial(addresses, index + 1, error instanceof Error ? error : new Error(String(error)));
      }
    };
    resolveChecked(options.hostname, allowlist, lookup).then(
      (addresses) => dial(addresses, 0, undefined),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function checkLimits(req: OutboundRequest): { maxResponseBytes: number; maxRedirects: number } {
  const maxResponseBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = req.maxRedirects ?? 0;
  if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0)
    throw new RangeError('timeoutMs must be positive');
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 0) {
    throw new RangeError('maxResponseBytes must be a non-negative integer');
  }
  if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0 || maxRedirects > MAX_REDIRECTS_LIMIT) {
    throw new RangeError(`maxRedirects must be an integer from 0 to ${MAX_REDIRECTS_LIMIT}`);
  }
  return { maxResponseBytes, maxRedirects };
}

function toOutboundError(error: unknown): OutboundHttpError {
  if (error instanceof OutboundHttpError) return error;
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? ` (${error.code})`
      : '';
  const message = error instanceof Error ? error.message : String(error);
  return new OutboundHttpError('network_error', `Request failed${code}: ${message}`, { cause: error });
}

/** Rejects as soon as `signal` aborts, even while `work` is stuck where undici cannot abort it (DNS). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The one SSRF-guarded HTTP client for the HTTP Request node, polling and webhook delivery
 * (DESIGN §10). Only http(s), no user info, every address of every hop checked against the block
 * list at connect time and dialled as checked, redirects followed by hand up to `maxRedirects`,
 * one deadline for the whole exchange and a cap on the response size.
 *
 * @example
 * const http = createOutboundHttpClient({ allowlist: parseAllowlist(env.SSRF_ALLOWLIST) });
 * const res = await http.request({ method: 'GET', url: 'https://api.example.com/x', timeoutMs: 10_000 });
 */
export function createOutboundHttpClient(options: OutboundHttpOptions): OutboundHttpClient {
  const allowlist = parseAllowlist(options.allowlist.join(','));
  const lookup = options.lookup ?? systemLookup;
  const agent = new Agent({ connect: createGuardedConnector(allowlist, lookup) });

  async function send(
    req: OutboundRequest,
    limits: { maxResponseBytes: number; maxRedirects: number },
    signal: AbortSignal,
  ): Promise<OutboundResponse> {
    let url = parseOutboundUrl(req.url);
    let current = {
      method: req.method,
      headers: { ...req.headers },
      body: req.body,
      sensitiveHeaders: req.sensitiveHeaders,
    };
    for (let redirects = 0; ; redirects++) {
      // Refuse early, without touching undici; the connector checks again (and for DNS names, first).
      if (isBlockedHostname(url.hostname)) throw ssrfBlocked(url.hostname);
      const literal = bareHost(url.hostname);
      if (isIP(literal) !== 0 && isBlockedAddress(literal, allowlist)) throw ssrfBlocked(url.hostname);

      const response = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: current.method,
        headers: current.headers,
        body: current.body ?? null,
        signal,
      });
      const location = response.headers.location;
      if (limits.maxRedirects > 0 && isRedirect(response.statusCode) && typeof location === 'string') {
        // Drain a little so the connection can be reused; a large body is dropped with its socket.
        await response.body.dump({ limit: 64 * 1024, signal });
        if (redirects >= limits.maxRedirects) {
          throw new OutboundHttpError('too_many_redirects', `More than ${limits.maxRedirects} redirects`);
        }
        const next = redirectTarget(url, location);
        current = redirectedRequest(response.statusCode, url, next, current);
        url = next;
        continue;
      }
      return {
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        body: await readCapped(response.body, response.headers['content-length'], limits.maxResponseBytes),
        url: url.href,
      };
    }
  }

  return {
    async request(req) {
      const limits = checkLimits(req);
      const methodProblem = checkMethod(req.method);
      if (methodProblem) throw new OutboundHttpError('invalid_url', methodProblem);
      const headerProblem = checkOutboundHeaders(req.headers ?? {});
      if (headerProblem) throw new OutboundHttpError('invalid_url', headerProblem);

      const deadline = new AbortController();
      const timer = setTimeout(
        () =>
          deadline.abort(new OutboundHttpError('timeout', `No complete response within ${req.timeoutMs} ms`)),
        req.timeoutMs,
      );
      const signal = req.signal ? AbortSignal.any([deadline.signal, req.signal]) : deadline.signal;
      const work = send(req, limits, signal);
      // When the race below settles first, `work` still settles later; its outcome is no longer wanted.
      work.catch(() => undefined);
      try {
        return await raceAbort(work, signal);
      } catch (error) {
        if (req.signal?.aborted) throw req.signal.reason;
        if (deadline.signal.aborted) throw deadline.signal.reason;
        throw toOutboundError(error);
      } finally {
        clearTimeout(timer);
      }
    },
    // destroy, not close: close() waits for requests still connecting, and a DNS lookup can hang.
    close: () => agent.destroy(),
  };
}

async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  contentLength: string | string[] | undefined,
  maxBytes: number,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new OutboundHttpError('response_too_large', `Response is larger than ${maxBytes} bytes`);
  if (typeof contentLength === 'string' && Number(contentLength) > maxBytes) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  // A fresh array rather than Buffer.concat: small Buffers are views into a shared pool.
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
