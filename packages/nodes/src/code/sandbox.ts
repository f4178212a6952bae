import { CodeRunError } from './errors';
import type { CodeLogs } from './logs';
import { CodeSandboxPool, defaultPoolOptions } from './pool';
import { readReport } from './report';

export { CodeRunError, type CodeRunErrorCode } from './errors';

export interface RunSandboxedCodeArgs {
  /** The body of an async function of `input`, e.g. `return input.trigger.total * 2`. */
  code: string;
  /** Passed in as JSON; it counts against the memory limit. */
  input: unknown;
  /** Wall-clock budget of the whole run, including promise jobs. */
  timeoutMs: number;
  memoryMb: number;
  /** Whose code it is: each organization gets a bounded share of the sandbox threads. */
  organizationId?: string;
}

const MIB = 1024 * 1024;

let pool: CodeSandboxPool | undefined;

/** The process's sandbox threads, started by the first run. */
function sandboxPool(): CodeSandboxPool {
  pool ??= new CodeSandboxPool(defaultPoolOptions());
  return pool;
}

/** Terminates the sandbox threads (process shutdown); a later run starts new ones. */
export async function closeCodeSandbox(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}

/**
 * Runs user JavaScript in a fresh QuickJS WASM context: the code is the body of an async function
 * of `input` and returns a JSON value (`undefined` becomes `null`). There is no I/O: no `fetch`,
 * `require`, `process`, timers or modules; promises created in the sandbox may be awaited.
 *
 * The run happens on a sandbox thread (pool.ts), never on the caller's event loop; a run that
 * outlives its timeout has its thread terminated.
 *
 * @throws CodeRunError `code_timeout`, `code_memory_limit`, `code_error` (with the user's line when
 * known) or `code_output` (the result is not JSON: a function, a cycle, a bigint). Any other error
 * means the sandbox could not run the code at all (it is shutting down or could not start).
 *
 * @example
 * await runSandboxedCode({ code: 'return input.total * 2', input: { total: 21 }, timeoutMs: 1000, memoryMb: 32 });
 * // 42
 */
export async function runSandboxedCode(args: RunSandboxedCodeArgs): Promise<unknown> {
  return (await runSandboxedCodeWithLogs(args)).value;
}

/**
 * `runSandboxedCode`, with what the code wrote to `console` (bounded: see logs.ts).
 *
 * @example
 * const code = 'console.log("hi", 1); return 2';
 * await runSandboxedCodeWithLogs({ code, input: null, timeoutMs: 1000, memoryMb: 32 });
 * // { value: 2, logs: { lines: [{ level: 'log', message: 'hi 1' }], truncated: false } }
 */
export async function runSandboxedCodeWithLogs(
  args: RunSandboxedCodeArgs,
): Promise<{ value: unknown; logs: CodeLogs }> {
  const inputJson = toAsciiJson(args.input);
  // The code and input are copied into the heap and then parsed there, which takes more memory
  // again; past half the limit that cannot succeed, and copying them in would fail inside WASM.
  if (2 * (inputJson.length + Buffer.byteLength(args.code)) > args.memoryMb * MIB) {
    throw new CodeRunError(
      'code_memory_limit',
      `the input does not fit in the memory limit of ${args.memoryMb} MB`,
    );
  }
  const job = { code: args.code, inputJson, timeoutMs: args.timeoutMs, memoryMb: args.memoryMb };
  return readReport(await sandboxPool().run(job, args.organizationId ?? ''));
}

/**
 * JSON with every non-ASCII character escaped: QuickJS then stores it as an 8-bit string, half
 * the size of a wide one, and its byte length is its length.
 */
function toAsciiJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
