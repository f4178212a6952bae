/**
 * The verbs of the operator's CLI (`weft org|user|api-key|settings|keys|backup|restore|up`), as an
 * entry of their own (`@weft/domain/admin`): a CLI command loads these modules only, about half of
 * the package, instead of every verb with the chat, e-mail and node-type code behind them. That
 * made each command ~0.5 s of CPU faster to start (docs/decisions.md, "Start-up CPU").
 */
export { listMembers, removeMember } from './accounts/members';
export { issueResetLink } from './accounts/password-reset';
export { findUserByEmail } from './accounts/sign-in';
export { CreateApiKeyInput, createApiKey } from './api-keys/create';
export { listApiKeys } from './api-keys/list';
export { revokeApiKey } from './api-keys/revoke';
export type { ServiceContext } from './context';
export { type MoveReport, moveInlineSecrets } from './credentials/move-inline-secrets';
export {
  appKeyId,
  checkKeyRing,
  createSecretBox,
  type KeyCheck,
  keyRingRefusal,
  rotateSealedValues,
} from './encryption';
export { AppError, notFound } from './errors';
export { createOrganization, organizationExists } from './organizations/create';
export { PERMISSIONS } from './permissions';
export { SettingsInput, updateSettings } from './settings/settings';
export { isUuid } from './text';
export { createUser } from './users/create';
