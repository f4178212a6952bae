export { checkKeyRing, type KeyCheck, keyRingRefusal } from './key-check';
export { type ColumnRotation, type RotationReport, rotateSealedValues } from './rotate';
export { SEALED_COLUMNS, type SealedColumn } from './sealed-columns';
export { appKeyId, createSecretBox, type KeyRingBox, type SecretBox, SecretBoxError } from './secret-box';
