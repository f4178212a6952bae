import { z } from 'zod';
import { storedText } from '../text';
import { CREDENTIAL_TYPES, type CredentialType } from './credential-types';

const CredentialName = storedText(z.string().trim().min(1).max(200));

const entries = Object.entries(CREDENTIAL_TYPES) as [
  CredentialType,
  (typeof CREDENTIAL_TYPES)[CredentialType],
][];

function variant<T extends CredentialType>(type: T, fields: z.ZodObject) {
  return z.object({ name: CredentialName, type: z.literal(type), fields: fields.strict() });
}

/** POST /credentials: every field of the type, secrets included. */
export const CredentialInput = z.discriminatedUnion(
  'type',
  entries.map(([type, definition]) => variant(type, definition.fields)) as unknown as [
    ReturnType<typeof variant>,
    ...ReturnType<typeof variant>[],
  ],
);
export type CredentialInput = { name: string; type: CredentialType; fields: Record<string, unknown> };

/** PUT /credentials/{id}: like POST, but a secret field left out keeps the stored value. */
export const CredentialUpdateInput = z.discriminatedUnion(
  'type',
  entries.map(([type, definition]) =>
    variant(
      type,
      z.object(
        Object.fromEntries(
          Object.entries(definition.fields.shape).map(([key, field]) => [
            key,
            (definition.secrets as readonly string[]).includes(key) ? (field as z.ZodType).optional() : field,
          ]),
        ),
      ),
    ),
  ) as unknown as [ReturnType<typeof variant>, ...ReturnType<typeof variant>[]],
);
export type CredentialUpdateInput = CredentialInput;
