import { MASKED_SECRET_PATTERN } from '@weft/graph';
import { maskSecret } from '../credentials/credential-types';
import type { SecretBox } from '../encryption';
import { validationError } from '../errors';

/**
 * The inbound hook's signing secret (`trigger_config.secret` of a webhook workflow, DESIGN §4).
 * Accepted in clear on write, kept encrypted (`secret_ciphertext`) with its mask (`secret_mask`),
 * answered masked like a credential field. Sending the mask back (GET, edit, PUT) keeps the secret.
 */
const CIPHERTEXT = 'secret_ciphertext';
const MASK = 'secret_mask';

export const isMaskedSecret = (value: unknown): boolean =>
  typeof value === 'string' && MASKED_SECRET_PATTERN.test(value);

/** The trigger config to store: a clear secret sealed, a mask resolved to the stored secret. */
export function sealHookSecret(
  triggerType: string,
  config: Record<string, unknown>,
  secrets: SecretBox,
  stored?: Record<string, unknown>,
): Record<string, unknown> {
  if (triggerType !== 'webhook') return config;
  const { secret, [CIPHERTEXT]: _ciphertext, [MASK]: _mask, ...rest } = config;
  if (typeof secret !== 'string' || secret === '') return rest;
  if (isMaskedSecret(secret)) {
    const kept = stored && presentedSecret(stored) === secret ? keptSecret(stored, secrets) : null;
    if (kept === null) {
      throw validationError({ 'trigger_config.secret': ['is a masked value: send the secret itself'] });
    }
    return { ...rest, [CIPHERTEXT]: kept.ciphertext, [MASK]: kept.mask };
  }
  return { ...rest, [CIPHERTEXT]: secrets.encrypt(secret), [MASK]: maskSecret(secret) };
}

/** The stored secret's ciphertext and mask (a clear one from before encryption is sealed now). */
function keptSecret(stored: Record<string, unknown>, secrets: SecretBox) {
  if (typeof stored[CIPHERTEXT] === 'string') {
    return { ciphertext: stored[CIPHERTEXT], mask: String(stored[MASK] ?? '••••') };
  }
  if (typeof stored.secret === 'string' && stored.secret !== '') {
    return { ciphertext: secrets.encrypt(stored.secret), mask: maskSecret(stored.secret) };
  }
  return null;
}

function presentedSecret(config: Record<string, unknown>): string | undefined {
  if (typeof config[MASK] === 'string') return config[MASK];
  if (typeof config.secret === 'string' && config.secret !== '') return maskSecret(config.secret);
  return undefined;
}

/** The trigger config as answered (API, audit, deliveries): the secret masked, the ciphertext left out. */
export function presentTriggerConfig(config: Record<string, unknown>): Record<string, unknown> {
  if (!(CIPHERTEXT in config) && typeof config.secret !== 'string') return config;
  const { secret: _secret, [CIPHERTEXT]: _ciphertext, [MASK]: _mask, ...rest } = config;
  const shown = presentedSecret(config);
  return shown === undefined ? rest : { ...rest, secret: shown };
}

/** The secret in clear, for verifying one inbound request; null when the hook has none. */
export function openHookSecret(config: Record<string, unknown>, secrets: SecretBox): string | null {
  if (typeof config[CIPHERTEXT] === 'string') return secrets.decrypt(config[CIPHERTEXT]);
  // Saved before secrets were encrypted (until `weft migrate` seals it).
  if (typeof config.secret === 'string' && config.secret !== '') return config.secret;
  return null;
}
