import { isSecretHeaderName } from '@weft/graph';
import { OutboundHttpError } from './errors';

/** Longer URLs are refused: most servers stop at 8 KiB, and a user-controlled URL has no reason to be longer. */
export const MAX_URL_LENGTH = 8192;

const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Tab and visible ISO-8859-1 only: CR, LF, NUL and other controls would split or smuggle headers. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Headers the client derives itself. Host and Content-Length come from the URL and body (a forged Host
 * would also change the TLS server name); the hop-by-hop ones would corrupt the connection.
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function describeUrlProblem(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `URL scheme ${url.protocol} is not allowed; use http: or https:`;
  }
  if (url.username !== '' || url.password !== '') return 'URL must not contain a user name or password';
  if (url.hostname === '') return 'URL has no host';
  return undefined;
}

/**
 * Validates a URL for saving: http: or https: only, no user info, a host present. It does not resolve
 * DNS, so a URL that passes may still be refused with `ssrf_blocked` when a request is made.
 * Returns an error message, or undefined when the URL is acceptable.
 *
 * @example
 * checkOutboundUrl('https://api.example.com/v1'); // undefined
 * checkOutboundUrl('file:///etc/passwd'); // 'URL scheme file: is not allowed; use http: or https:'
 */
export function checkOutboundUrl(url: string): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `URL is longer than ${MAX_URL_LENGTH} characters`;
  if (!URL.canParse(url)) return 'URL is not valid';
  return describeUrlProblem(new URL(url));
}

/** The parsed URL, or an `invalid_url` error. Hostnames in odd notations come back normalised (0x7f.1 -> 127.0.0.1). */
export function parseOutboundUrl(url: string): URL {
  const problem = checkOutboundUrl(url);
  if (problem) throw new OutboundHttpError('invalid_url', problem);
  return new URL(url);
}

/**
 * Validates user-supplied request headers before anything is sent: token names, no control
 * characters (CR/LF) in values, none of the headers the client sets itself.
 * Returns an error message, or undefined when the headers are acceptable.
 */
export function checkOutboundHeaders(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) return `Header name ${JSON.stringify(name)} is not valid`;
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      return `Header ${name} is set by the client and cannot be given`;
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      return `Header ${name} has a value with a line break or another control or non-Latin-1 character`;
    }
  }
  return undefined;
}

export function checkMethod(method: string): string | undefined {
  if (!HTTP_TOKEN.test(method)) return `HTTP method ${JSON.stringify(method)} is not valid`;
  if (method.toUpperCase() === 'CONNECT') return 'HTTP method CONNECT is not allowed';
  return undefined;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/**
 * Where a redirect leads: the Location resolved against the current URL, checked like a first URL.
 * https -> http is refused, so a TLS request never continues in clear text.
 */
export function redirectTarget(current: URL, location: string): URL {
  if (!URL.canParse(location, current.href)) {
    throw new OutboundHttpError('invalid_url', 'Redirect Location is not a valid URL');
  }
  const next = new URL(location, current);
  next.hash = '';
  const problem = next.href.length > MAX_URL_LENGTH ? 'is too long' : describeUrlProblem(next);
  if (problem) throw new OutboundHttpError('invalid_url', `Redirect refused: ${problem}`);
  if (current.protocol === 'https:' && next.protocol === 'http:') {
    throw new OutboundHttpError('ssrf_blocked', 'Redirect from https to http refused');
  }
  return next;
}

/**
 * How a redirect changes the request, as browsers and fetch do: 303 (and 301/302 after POST)
 * becomes a body-less GET; 307 and 308 repeat the method and body. No header carrying a secret goes
 * to another origin: the well-known ones (Authorization, Cookie, X-Api-Key, ...) and every header the
 * caller named in `sensitiveHeaders` (those a credential set, under any name).
 */
export function redirectedRequest(
  status: number,
  from: URL,
  to: URL,
  request: {
    method: string;
    headers: Record<string, string>;
    body: string | Uint8Array | undefined;
    sensitiveHeaders?: readonly string[] | undefined;
  },
): {
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  sensitiveHeaders: readonly string[] | undefined;
} {
  const method = request.method.toUpperCase();
  const toGet =
    (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  const crossOrigin = from.origin !== to.origin;
  const sensitive = new Set((request.sensitiveHeaders ?? []).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (crossOrigin && (isSecretHeaderName(lower) || sensitive.has(lower))) continue;
    if (toGet && lower.startsWith('content-')) continue;
    headers[name] = value;
  }
  const { sensitiveHeaders } = request;
  return toGet
    ? { method: 'GET', headers, body: undefined, sensitiveHeaders }
    : { method: request.method, headers, body: request.body, sensitiveHeaders };
}
