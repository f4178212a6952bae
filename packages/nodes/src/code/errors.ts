/**
 * The closed set of ways user code can fail. These are the step's error codes, so they are stable:
 * no engine-internal name (a WebAssembly `RuntimeError`, a worker's exit code) ever takes their place.
 */
export type CodeRunErrorCode = 'code_timeout' | 'code_memory_limit' | 'code_error' | 'code_output';

/** A failure of the user's code; the message is meant for the workflow's author. */
export class CodeRunError extends Error {
  override readonly name = 'CodeRunError';

  constructor(
    readonly code: CodeRunErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function timeoutError(timeoutMs: number): CodeRunError {
  return new CodeRunError('code_timeout', `the code ran longer than ${timeoutMs} ms`);
}

export function memoryError(): CodeRunError {
  return new CodeRunError('code_memory_limit', 'the code ran out of memory');
}
