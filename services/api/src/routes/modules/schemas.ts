import { z } from '@hono/zod-openapi';
import {
  AppError,
  HTTP_URL_PATTERN,
  MODULE_NAMES,
  MODULE_SCHEMAS,
  MODULE_SECRET_FIELDS,
  type ModuleName,
} from '@weft/domain';
import { toJSONSchema } from 'zod';

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

type Json = Record<string, unknown>;

/**
 * The configs a module takes, as the document states them: each module's schema (the one
 * putModule validates with), its secret fields optional (a left-out one keeps the stored value),
 * and the rules zod states in refinements written out.
 */
function documentedConfigs(): Json[] {
  const secrets = new Set(Object.values(MODULE_SECRET_FIELDS).flat());
  return MODULE_NAMES.flatMap((name) => {
    const json = toJSONSchema(MODULE_SCHEMAS[name], { io: 'input', unrepresentable: 'any' }) as Json;
    const branches = (json.oneOf as Json[] | undefined) ?? [json];
    return branches.map((branch) => {
      const { $schema: _, ...rest } = branch;
      const properties = rest.properties as Record<string, Json>;
      if (properties.base_url) properties.base_url.pattern = HTTP_URL_PATTERN;
      if (properties.security && properties.allow_insecure) {
        // .refine: security "none" only with allow_insecure: true.
        rest.anyOf = [
          { properties: { security: { enum: ['tls', 'starttls'] } } },
          { properties: { allow_insecure: { const: true } }, required: ['allow_insecure'] },
        ];
      }
      return { ...rest, required: (rest.required as string[]).filter((field) => !secrets.has(field)) };
    });
  });
}

export const ModuleConfigBody = z.record(z.string(), z.unknown()).openapi('ModuleConfig', {
  description:
    'The config of the module in the path: chat takes the `cloud` or the `gateway` provider config, email the SMTP ' +
    'config, ai the provider config. A secret field left out keeps the stored one (same provider); without a ' +
    'stored one it is required.',
  oneOf: documentedConfigs() as never,
});
