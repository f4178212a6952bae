import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { CANARY_DIRECTORY, isSecretName, testLogDirectory } from '@weft/telemetry';

/**
 * The canary list: every secret value the tests create (API keys, credential fields, module
 * secrets, webhook secrets, TOTP secrets, reset and invitation tokens, passwords) is appended to
 * `<test-log dir>/canaries/<pid>.jsonl`; scripts/scan-logs-for-secrets.ts fails the run when any
 * log file of it contains one. The shared request helpers register what crosses them, so a test
 * adds nothing to be covered.
 */

/** Shorter values would match ordinary log text (and short test passwords are refused anyway). */
const MIN_LENGTH = 8;
/** What the API answers in place of a secret (masked, redacted, a trace's `[credential:x]`) and expressions: no secret. */
const NOT_A_SECRET = /^[*•]|\[redacted\]|\[credential:|\{\{/;

const registered = new Set<string>();

/** Records one secret value under `kind` (`api_key`, `credential:password` …); never the log's business. */
export function registerCanary(kind: string, value: string): void {
  if (value.length < MIN_LENGTH || NOT_A_SECRET.test(value) || registered.has(value)) return;
  registered.add(value);
  const directory = path.join(testLogDirectory(), CANARY_DIRECTORY);
  mkdirSync(directory, { recursive: true });
  appendFileSync(path.join(directory, `${process.pid}.jsonl`), `${JSON.stringify({ kind, value })}\n`);
}

/** The area a request path belongs to (`credentials`, `modules`, `auth` …), to name a canary's kind. */
function areaOf(requestPath: string): string {
  const [area = 'request'] = requestPath.replace(/^\/api\/v1\//, '').split(/[/?]/);
  return area;
}

/** Secret tokens carried by links a response holds (reset and invitation links, hook URLs). */
function linkTokens(text: string): [string, string][] {
  const found: [string, string][] = [];
  for (const match of text.matchAll(/[?&]token=([^&#\s"]+)/g))
    found.push(['reset_token', match[1] as string]);
  for (const match of text.matchAll(/\/invite\/([^/?#\s"]+)/g))
    found.push(['invitation_token', match[1] as string]);
  for (const match of text.matchAll(/\/api\/hooks\/([^/?#\s"]+)/g))
    found.push(['hook_token', match[1] as string]);
  return found.flatMap(([kind, raw]) => {
    const decoded = decodeURIComponent(raw);
    return decoded === raw
      ? [[kind, raw]]
      : [
          [kind, raw],
          [kind, decoded],
        ];
  }) as [string, string][];
}

/**
 * Registers the secrets in a JSON value that crossed a test helper: fields named like secrets
 * (the logger's own rule), Weft API keys and webhook secrets wherever they are, and link tokens.
 */
export function registerSecretsIn(value: unknown, area: string): void {
  // A credential's fields are all secret (a header's `value` included) but a header's name and a username.
  const secretField = (key: string | undefined, inFields: boolean) =>
    key !== undefined &&
    (isSecretName(key) || (area === 'credentials' && inFields && key !== 'name' && key !== 'username'));
  const visit = (node: unknown, key: string | undefined, depth: number, inFields = false) => {
    if (depth > 12 || node === null || node === undefined) return;
    if (typeof node === 'string') {
      if (secretField(key, inFields)) registerCanary(`${area}:${key}`, node);
      for (const match of node.matchAll(/\bweft_[A-Za-z0-9]{16,}/g)) registerCanary('api_key', match[0]);
      for (const match of node.matchAll(/\bwhsec_[A-Za-z0-9+/=_-]{16,}/g))
        registerCanary('webhook_secret', match[0]);
      for (const [kind, token] of linkTokens(node)) registerCanary(kind, token);
      return;
    }
    if (Array.isArray(node)) for (const item of node) visit(item, key, depth + 1, inFields);
    else if (typeof node === 'object')
      for (const [k, v] of Object.entries(node)) visit(v, k, depth + 1, inFields || k === 'fields');
  };
  visit(value, undefined, 0);
}

/**
 * Registers the secrets of one request through a test helper that succeeded: its JSON body and its
 * JSON answer. A refused request created nothing (and its error envelope names fields like
 * `password` with messages, not secrets).
 */
export async function registerRequestSecrets(
  requestPath: string,
  body: unknown,
  response: Response,
): Promise<void> {
  if (!response.ok) return;
  const area = areaOf(requestPath);
  registerSecretsIn(typeof body === 'string' ? parseJson(body) : body, area);
  if (!(response.headers.get('content-type') ?? '').includes('json')) return;
  registerSecretsIn(parseJson(await response.clone().text()), area);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
