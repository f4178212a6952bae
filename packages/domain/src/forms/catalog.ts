import { z } from 'zod';
import { CREDENTIAL_TYPES } from '../credentials/credential-types';
import { MODULE_NAMES, MODULE_SCHEMAS, MODULE_SECRET_FIELDS } from '../modules/module-config';

/**
 * What a client needs to draw a form for a credential type or a module without knowing either: the
 * JSON Schema of each variant (one, or one per `provider` for the chat module) and which fields are
 * secret (write-only, answered masked). The web app renders every such form with one component.
 */
export interface FormSpec {
  name: string;
  description: string;
  secrets: string[];
  /** The field whose value picks the variant (`provider`), when there are several. */
  discriminator: string | null;
  variants: { value: string | null; schema: Record<string, unknown> }[];
}

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

export function credentialFormSpecs(): FormSpec[] {
  return Object.entries(CREDENTIAL_TYPES).map(([name, definition]) => ({
    name,
    description: definition.description,
    secrets: [...definition.secrets],
    discriminator: null,
    variants: [{ value: null, schema: jsonSchema(definition.fields) }],
  }));
}

const MODULE_DESCRIPTIONS = {
  chat: 'Chat messages through the cloud provider or the gateway provider (24-hour window, approved templates)',
  email: 'E-mail through your SMTP server',
  ai: 'AI prompts through an OpenAI-compatible or Anthropic API',
} as const;

export function moduleFormSpecs(): FormSpec[] {
  return MODULE_NAMES.map((name) => {
    const schema = MODULE_SCHEMAS[name];
    const options = schema instanceof z.ZodDiscriminatedUnion ? (schema.options as z.ZodObject[]) : null;
    return {
      name,
      description: MODULE_DESCRIPTIONS[name],
      secrets: [...MODULE_SECRET_FIELDS[name]],
      discriminator: options ? 'provider' : null,
      variants: options
        ? options.map((option) => ({
            value: String((option.shape.provider as z.ZodLiteral).value),
            schema: jsonSchema(option),
          }))
        : [{ value: null, schema: jsonSchema(schema) }],
    };
  });
}
