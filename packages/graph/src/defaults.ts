/**
 * What a node's `on_failure` means when it says nothing: the step is recorded as failed and the
 * execution goes on (ending `partial`). Zod-free, so the schema and the interpreter share it.
 */
export const DEFAULT_ON_FAILURE = 'continue' as const;
