export { createSecretBox, type SecretBox, SecretBoxError } from './secret-box';
