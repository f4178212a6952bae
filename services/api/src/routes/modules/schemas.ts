import { z } from '@hono/zod-openapi';
import { AppError, MODULE_NAMES, type ModuleName } from '@weft/services';

export const ModuleParam = z.object({
  name: z
    .string()
    .openapi({ param: { name: 'name', in: 'path' }, example: 'chat', description: MODULE_NAMES.join(', ') }),
});

/** The module named in the path; an unknown one is a 404 like any unknown resource. */
export function moduleOf(name: string): ModuleName {
  if (!(MODULE_NAMES as readonly string[]).includes(name))
    throw new AppError('not_found', `No module named ${name}`);
  return name as ModuleName;
}

export const ModuleResource = z
  .object({
    module: z.enum(MODULE_NAMES),
    config: z.record(z.string(), z.unknown()).openapi({
      description: 'The provider config as PUT, secret fields (tokens, passwords, keys) masked: `••••wxyz`.',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Module');

export const ModuleConfigBody = z.record(z.string(), z.unknown()).openapi('ModuleConfig', {
  description:
    'chat: {provider: "cloud", business_account_id, phone_number_id, access_token, app_secret, verify_token} or ' +
    '{provider: "gateway", account_sid, auth_token, from_number}; email: {host, port, security: tls|starttls|none, ' +
    'allow_insecure?, username?, password?, from_email, from_name?}; ai: {provider: openai|anthropic, base_url, ' +
    'api_key, default_model}. A secret field left out keeps the stored one (same provider).',
});
