import { z } from 'zod';
import { storedText } from '../text';

/** The organization modules (DESIGN §7) and the body PUT /modules/{name} takes for each. */
export const MODULE_NAMES = ['chat', 'email', 'ai'] as const;
export type ModuleName = (typeof MODULE_NAMES)[number];
export const ModuleName = z.enum(MODULE_NAMES);

const Text = (max = 1024, pattern?: RegExp, message?: string) =>
  storedText(
    pattern ? z.string().trim().min(1).max(max).regex(pattern, message) : z.string().trim().min(1).max(max),
  );
const Secret = storedText(z.string().min(1).max(8192)).refine(
  (v) => !/[\r\n\0]/.test(v),
  'must not contain line breaks',
);
const HttpUrl = Text(2048).refine(
  (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).username === '',
  'must be an http(s) URL without credentials',
);

const ChatCloud = z
  .object({
    provider: z.literal('cloud'),
    business_account_id: Text(64, /^\d+$/, 'must be the numeric business account id'),
    phone_number_id: Text(64, /^\d+$/, 'must be the numeric phone number id'),
    access_token: Secret,
    app_secret: Secret,
    verify_token: Secret,
  })
  .strict();
const ChatGateway = z
  .object({
    provider: z.literal('gateway'),
    account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hex digits'),
    auth_token: Secret,
    from_number: z.string().regex(/^whatsapp:\+[1-9]\d{6,14}$/, 'must look like whatsapp:+14155238886'),
  })
  .strict();

const Email = z
  .object({
    host: Text(255, /^[A-Za-z0-9.-]+$/, 'must be a host name or address'),
    port: z.number().int().min(1).max(65535),
    security: z.enum(['tls', 'starttls', 'none']),
    allow_insecure: z.boolean().optional(),
    username: Text(320).optional(),
    password: Secret.optional(),
    from_email: z.email().max(320),
    from_name: Text(200)
      .refine((v) => !/[\r\n]/.test(v), 'must not contain line breaks')
      .optional(),
  })
  .strict()
  .refine((c) => c.security !== 'none' || c.allow_insecure === true, {
    message: 'security "none" sends the password in clear: set allow_insecure to true to accept that',
    path: ['security'],
  });

const Ai = z
  .object({
    provider: z.enum(['openai', 'anthropic']),
    base_url: HttpUrl,
    api_key: Secret,
    default_model: Text(200),
  })
  .strict();

export const MODULE_SCHEMAS = {
  chat: z.discriminatedUnion('provider', [ChatCloud, ChatGateway]),
  email: Email,
  ai: Ai,
} as const satisfies Record<ModuleName, z.ZodType>;

/** Write-only fields of each module: stored encrypted, answered masked, kept when a PUT leaves them out. */
export const MODULE_SECRET_FIELDS: Record<ModuleName, readonly string[]> = {
  chat: ['access_token', 'app_secret', 'verify_token', 'auth_token'],
  email: ['password'],
  ai: ['api_key'],
};

export type ModuleConfig = Record<string, unknown>;
