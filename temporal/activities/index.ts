/** Activity factory: dependencies come in, activities come out (samples-typescript style). */
// biome-ignore lint/complexity/noBannedTypes: no dependencies until the engine issue adds activities
export type ActivityDeps = {};

export function createActivities(_deps: ActivityDeps) {
  return {};
}
