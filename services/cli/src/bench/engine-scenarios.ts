/**
 * The scenarios of `weft bench engine` that `--scenarios` picks (the option is parsed without loading
 * the bench itself): a no-op Temporal workflows, b the 4-node flow, g event → HTTP → transform,
 * f the 202 without a Temporal start, d one event fanned out, e memory with executions waiting.
 */
export const ENGINE_SCENARIOS = ['a', 'b', 'g', 'f', 'd', 'e'] as const;
export type EngineScenario = (typeof ENGINE_SCENARIOS)[number];
