import { pino } from 'pino';

/** What a secret is replaced with in a log line. */
export const REDACTED = '[redacted]';

/**
 * Field names whose values are secrets wherever they sit (compared lower-case, without `-`, `_`,
 * `.` or spaces), plus every name ending in one of SECRET_NAME_ENDINGS (`client_secret`,
 * `captcha_token`, `db_password` …).
 */
const SECRET_NAMES = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'xapikey',
  'apikey',
  'appkey',
  'privatekey',
  'secretkey',
  'accesskey',
  'encryptionkey',
  'passwd',
  'credentials',
]);
const SECRET_NAME_ENDINGS = ['password', 'secret', 'token', 'apikey', 'privatekey', 'passphrase'];

const normalizeName = (name: string) => name.toLowerCase().replace(/[-_. ]/g, '');

/** Whether a field of this name holds a secret (`Authorization`, `app_secret`, `access_token` …). */
export function isSecretName(name: string): boolean {
  const key = normalizeName(name);
  return SECRET_NAMES.has(key) || SECRET_NAME_ENDINGS.some((ending) => key.endsWith(ending));
}

/** Query parameter names that carry a credential (`?token=`, `&X-Amz-Signature=`, `?code=` …). */
const SECRET_PARAM =
  /(?:^|[-_.])(?:token|key|apikey|signature|sig|code|secret|password|passwd|pwd|pass|auth|credential|session)$/i;

/**
 * Secret shapes found inside any string (messages, URLs, bodies, stack traces): each is replaced
 * in place, keeping the text around it readable.
 */
const VALUE_PATTERNS: [RegExp, string][] = [
  // PEM private keys, whole.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // Authorization values: `Basic dXNlcjpwYXNz`, `Bearer eyJ…` (a `realm="…"` challenge is kept).
  [/\b([Bb]asic|BASIC|[Bb]earer|BEARER)(\s+)(?![A-Za-z]+=")[A-Za-z0-9._~+/-]+=*/g, `$1$2${REDACTED}`],
  // Weft API keys, Standard Webhooks secrets, and the common providers' key formats.
  [/\bweft_[A-Za-z0-9]{16,}/g, REDACTED],
  [/\bwhsec_[A-Za-z0-9+/=_-]{16,}/g, REDACTED],
  [
    /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abprs]-[\w-]{10,}|sk-[\w-]{20,}|AKIA[0-9A-Z]{16})/g,
    REDACTED,
  ],
  // JSON web tokens.
  [/\beyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]{5,}/g, REDACTED],
  // URL user-info: `postgres://user:password@host`, `https://token@host`.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
  // Weft's own secret-bearing paths: incoming-webhook tokens and invitation links.
  [/(\/(?:api\/hooks|invite)\/)[^/?#\s"'<>]+/g, `$1${REDACTED}`],
  // `"password": "…"` inside a JSON text (an upstream body logged as a string).
  [
    /("[^"\\]{0,60}?(?:password|secret|token|api[-_]?key|authorization|cookie)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi,
    `$1"${REDACTED}"`,
  ],
];

/** `name=value` pairs of a query string or form body: the value goes when the name is a credential's. */
const PARAMETER = /([?&;]|^)([^=&#?;\s"'<>]+)=([^&#;\s"'<>]*)/g;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * Values this process knows to be secrets (a credential's fields once opened): replaced wherever
 * they appear, so an upstream that echoes a password back cannot put it in a log line. Bounded:
 * the oldest are forgotten first.
 */
const known = new Set<string>();
const KNOWN_LIMIT = 2000;
/** Shorter values would redact ordinary words. */
const KNOWN_MIN_LENGTH = 6;

export function rememberSecrets(values: Iterable<unknown>): void {
  for (const value of values) {
    if (typeof value !== 'string' || value.length < KNOWN_MIN_LENGTH) continue;
    known.delete(value);
    known.add(value);
    if (known.size > KNOWN_LIMIT) known.delete(known.values().next().value as string);
  }
}

/** Every secret shape in `text` replaced by the marker. */
export function redactText(text: string): string {
  let out = text;
  if (out.length >= KNOWN_MIN_LENGTH) {
    for (const value of known) if (out.includes(value)) out = out.replaceAll(value, REDACTED);
  }
  for (const [pattern, replacement] of VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(PARAMETER, (whole, separator: string, name: string) =>
    SECRET_PARAM.test(decodeName(name)) ? `${separator}${name}=${REDACTED}` : whole,
  );
}

const MAX_DEPTH = 12;

function walkFields(value: object, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] =
      isSecretName(key) && field !== null && field !== undefined && typeof field !== 'boolean'
        ? REDACTED
        : walk(field, depth + 1, seen);
  }
  return out;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth > MAX_DEPTH) return '[too deep]';
  seen.add(value);
  try {
    // pino's serializer keeps an error's type, message, stack, own fields and `cause` chain.
    if (value instanceof Error) return walkFields(pino.stdSerializers.errWithCause(value), depth, seen);
    if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen));
    if (value instanceof Map) return walk(Object.fromEntries(value), depth, seen);
    if (value instanceof Set) return walk([...value], depth, seen);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return walk(toJSON.call(value), depth + 1, seen);
    return walkFields(value, depth, seen);
  } finally {
    seen.delete(value);
  }
}

/**
 * A copy of `value` that is safe to log: at any depth, fields named like secrets are replaced by
 * the marker, strings lose their secret shapes (authorization values, keys, URL user-info, token
 * query parameters, known secret values), and errors are serialized with their `cause` chain
 * through the same rules.
 *
 * @example
 * redact({ err, request: { headers: { Authorization: 'Basic dTpw' } } });
 * // { err: { type, message, stack, … }, request: { headers: { Authorization: '[redacted]' } } }
 */
export function redact<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}
