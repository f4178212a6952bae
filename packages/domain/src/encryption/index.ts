export {
  checkKeyRing,
  type KeyCheck,
  keyRingRefusal,
  keyRingStartRefusal,
  MigrationsMissingError,
} from './key-check';
export { type ColumnRotation, type RotationReport, rotateSealedValues } from './rotate';
export { SEALED_COLUMNS, type SealedColumn } from './sealed-columns';
export { appKeyId, createSecretBox, type KeyRingBox, type SecretBox, SecretBoxError } from './secret-box';
