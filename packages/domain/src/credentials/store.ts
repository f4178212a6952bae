import { MASKED_SECRET_PATTERN } from '@weft/graph';
import type { SecretBox } from '../encryption';
import { CREDENTIAL_TYPES, type CredentialType, maskSecret } from './credential-types';

/** Splits validated fields into what is stored in clear, what is encrypted, and the masks shown. */
export function sealCredentialFields(
  type: CredentialType,
  fields: Record<string, unknown>,
  secrets: SecretBox,
) {
  return sealFields(fields, CREDENTIAL_TYPES[type].secrets, secrets);
}

/** The same split for any set of fields whose `secretKeys` are secret (credentials, module configs). */
export function sealFields(
  fields: Record<string, unknown>,
  secretKeyList: readonly string[],
  secrets: SecretBox,
): { publicFields: Record<string, unknown>; secretCiphertext: string; masks: Record<string, string> } {
  const secretKeys = new Set<string>(secretKeyList);
  const publicFields: Record<string, unknown> = {};
  const secret: Record<string, string> = {};
  const masks: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (secretKeys.has(key)) {
      secret[key] = String(value);
      masks[key] = maskSecret(String(value));
    } else {
      publicFields[key] = value;
    }
  }
  return { publicFields, secretCiphertext: secrets.encrypt(JSON.stringify(secret)), masks };
}

/** The secret fields of a stored credential or module config, decrypted. Only activities that use them call this. */
export function openCredentialSecrets(secretCiphertext: string, secrets: SecretBox): Record<string, string> {
  return JSON.parse(secrets.decrypt(secretCiphertext)) as Record<string, string>;
}

/** Fields without the secret ones whose value is a mask (`••••wxyz`): those mean "keep the stored one". */
export function withoutMasks(config: Record<string, unknown>, secretFields: readonly string[]) {
  return Object.fromEntries(
    Object.entries(config).filter(
      ([key, value]) =>
        !(secretFields.includes(key) && typeof value === 'string' && MASKED_SECRET_PATTERN.test(value)),
    ),
  );
}
