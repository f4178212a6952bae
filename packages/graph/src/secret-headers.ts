/**
 * Header names that carry secrets. A workflow's plain config is answered back to anyone who may
 * view the workflow, written to the audit trail and to outbound `workflow.*` deliveries, so such a
 * header is refused there at save: the secret goes into a credential and the config names it by
 * `credential_id`.
 */
const SECRET_HEADER_NAMES = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'apikey',
  'x-auth-token',
  'x-access-token',
]);

export const SECRET_HEADER_MESSAGE =
  'holds a secret: store it in a credential (POST /credentials) and set credential_id instead';

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER_NAMES.has(name.toLowerCase());
}

/**
 * Whether a plain header holds a stored secret: a secret-holding name with a literal value. A value
 * with an expression (`Bearer {{nodes.login.body.token}}`) is computed per run, not stored, and stays.
 */
export function isInlineSecretHeader(name: string, value: unknown): boolean {
  return isSecretHeaderName(name) && !(typeof value === 'string' && value.includes('{{'));
}

/** A zod check for a header map: each header holding a stored secret is an issue on that header. */
export function refuseSecretHeaders(
  headers: Record<string, unknown> | undefined,
  ctx: { addIssue(issue: { code: 'custom'; path: string[]; message: string }): void },
): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (isInlineSecretHeader(name, value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: SECRET_HEADER_MESSAGE });
    }
  }
}

/** How the API shows a secret it keeps (`••••wxyz`); sending it back means "keep the stored one". */
export const MASKED_SECRET_PATTERN = /^••••[\s\S]{0,4}$/u;
