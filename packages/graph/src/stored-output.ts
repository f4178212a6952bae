/**
 * A node output too large to travel through Temporal stands in the workflow as this reference; the
 * value lives in PostgreSQL (stored_outputs) and is resolved by activities that need it. Pure: the
 * interpreter checks for references in workflow code.
 */
export const STORED_OUTPUT_KEY = '$stored_output';

export interface StoredOutputRef {
  [STORED_OUTPUT_KEY]: string;
  size_bytes: number;
}

export function isStoredOutputRef(value: unknown): value is StoredOutputRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as Record<string, unknown>)[STORED_OUTPUT_KEY] === 'string'
  );
}

/** True when a reference sits anywhere inside `value` (merge and loop outputs nest their inputs'). */
export function containsStoredOutput(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  if (isStoredOutputRef(value)) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => containsStoredOutput(child, depth + 1));
}
