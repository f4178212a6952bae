import { z } from 'zod';
import { storedText } from '../text';

/**
 * The kinds of credential and their fields. A field is either public (shown back as is: a header's
 * name, a user name, a host) or secret (kept encrypted, shown masked, never in logs or audit).
 */
const Secret = storedText(z.string().min(1).max(8192));
const Public = storedText(z.string().min(1).max(1024));
/** Header names as RFC 9110 tokens: nothing that could split a request. */
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'must be an HTTP header name');
/**
 * A value that goes into a request header: no line breaks that could split the request. A regex
 * rather than a refine so the OpenAPI document shows it (as `pattern`).
 */
const NoControlCharacters = (schema: z.ZodString) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters refused
  schema.regex(/^[^\r\n\u0000]*$/, 'must not contain line breaks');

interface CredentialTypeDefinition {
  description: string;
  fields: z.ZodObject;
  /** Which fields of `fields` are secret. */
  secrets: readonly string[];
}

export const CREDENTIAL_TYPES = {
  http_bearer: {
    description: 'Authorization: Bearer <token> on HTTP nodes and polling',
    fields: z.object({ token: NoControlCharacters(Secret) }),
    secrets: ['token'],
  },
  http_header: {
    description: 'One request header (for example X-Api-Key) on HTTP nodes and polling',
    fields: z.object({ name: HeaderName, value: NoControlCharacters(Secret) }),
    secrets: ['value'],
  },
  http_basic: {
    description: 'Authorization: Basic on HTTP nodes and polling',
    fields: z.object({
      // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters refused
      username: Public.regex(/^[^:\r\n\u0000]*$/, 'must not contain ":" or line breaks'),
      password: NoControlCharacters(Secret),
    }),
    secrets: ['password'],
  },
  webhook_secret: {
    description: 'The shared secret an inbound hook verifies signatures with',
    fields: z.object({ secret: storedText(z.string().min(8).max(256)) }),
    secrets: ['secret'],
  },
  smtp: {
    description: 'An SMTP account for the e-mail module',
    fields: z.object({
      username: Public.optional(),
      password: Secret.optional(),
    }),
    secrets: ['password'],
  },
  ai_openai: {
    description: 'An API key for an OpenAI-compatible chat completions API',
    fields: z.object({ api_key: Secret }),
    secrets: ['api_key'],
  },
  ai_anthropic: {
    description: 'An API key for the Anthropic Messages API',
    fields: z.object({ api_key: Secret }),
    secrets: ['api_key'],
  },
  chat_cloud: {
    description: 'The cloud chat provider: access token and app secret (signature of inbound posts)',
    fields: z.object({ access_token: Secret, app_secret: Secret }),
    secrets: ['access_token', 'app_secret'],
  },
  chat_gateway: {
    description: 'The gateway chat provider: account id and auth token (basic auth and inbound signatures)',
    fields: z.object({ account_sid: Public, auth_token: Secret }),
    secrets: ['auth_token'],
  },
} as const satisfies Record<string, CredentialTypeDefinition>;

export type CredentialType = keyof typeof CREDENTIAL_TYPES;
export const CredentialType = z.enum(Object.keys(CREDENTIAL_TYPES) as [CredentialType, ...CredentialType[]]);

/** The types an HTTP node or a polling trigger may authenticate with. */
export const HTTP_CREDENTIAL_TYPES: readonly CredentialType[] = ['http_bearer', 'http_header', 'http_basic'];

/** What the API shows of a secret: its last four characters when it is long enough to keep them private. */
export function maskSecret(value: string): string {
  // By characters, not UTF-16 units: half an emoji would be a lone surrogate, which the jsonb
  // columns the mask is stored in refuse (fuzzer finding: 22P02 on a secret ending in one).
  const characters = [...value];
  return characters.length >= 12 ? `••••${characters.slice(-4).join('')}` : '••••';
}
