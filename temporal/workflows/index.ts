/**
 * Workflow definitions registered by the worker. Deterministic code only: Biome forbids Node
 * built-ins and I/O packages in this folder. The graph interpreter is added by the engine issue.
 */
export {};
