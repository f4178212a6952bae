/** A workflow that does nothing: `weft bench engine` uses it to measure the engine's own ceiling. */
export async function noop(): Promise<void> {}
