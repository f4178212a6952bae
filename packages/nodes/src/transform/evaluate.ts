/** A transform config after interpolation: a value that was exactly one {{...}} keeps its type. */
export interface RenderedTransformConfig {
  assignments: { key: string; value: unknown }[];
}

/** The output object of a transform whose assignment values were already interpolated. */
export function runTransform(config: RenderedTransformConfig): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const { key, value } of config.assignments) {
    // Own data property even for a key like "__proto__": never a prototype write.
    Object.defineProperty(output, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return output;
}
