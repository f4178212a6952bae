import {
  newQuickJSWASMModule,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
  RELEASE_SYNC,
  shouldInterruptAfterDeadline,
} from 'quickjs-emscripten';
import { HARNESS } from './harness';
import { type CodeLogs, readCodeLogs } from './logs';

export type CodeRunErrorCode = 'code_timeout' | 'code_memory' | 'code_error' | 'code_output';

/** The closed set of ways user code can fail; the message is meant for the workflow's author. */
export class CodeRunError extends Error {
  override readonly name = 'CodeRunError';

  constructor(
    readonly code: CodeRunErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface RunSandboxedCodeArgs {
  /** The body of an async function of `input`, e.g. `return input.trigger.total * 2`. */
  code: string;
  /** Passed in as JSON; it counts against the memory limit. */
  input: unknown;
  /** Wall-clock budget of the whole run, including promise jobs. */
  timeoutMs: number;
  memoryMb: number;
}

const MIB = 1024 * 1024;
const WASM_PAGE_BYTES = 64 * 1024;

/**
 * The memory limit is enforced by the size of the WASM heap, not by `runtime.setMemoryLimit`:
 * in quickjs-emscripten 0.32.0 that only refuses a single allocation larger than the limit, while
 * any number of smaller ones succeed (QuickJS counts each block as 8 bytes under emscripten; see
 * justjake/quickjs-emscripten#271), so a 16 MB script could grow the process by 2 GB. Each module
 * therefore gets its own `WebAssembly.Memory` whose maximum is the limit plus what QuickJS needs
 * before user code runs; when the heap cannot grow, malloc fails and QuickJS throws its ordinary
 * out-of-memory error. The module's WASM declares 16 MiB (256 pages) of initial memory, which is
 * also the floor: a limit below about 11 MiB gets about 11 MiB. `setMemoryLimit` is still set, so
 * one allocation larger than the limit fails at once.
 */
const MIN_HEAP_PAGES = 256;
/** Static data, the C stack and an empty runtime and context (measured at about 4.7 MiB). */
const HEAP_BASE_BYTES = 5 * MIB;
/** Modules are kept per heap size; a few distinct `memory_mb` values are expected. */
const MAX_CACHED_MODULES = 4;

/**
 * QuickJS checks its own stack against this limit, but its WASM frames live on V8's native stack,
 * which runs out first above roughly 400 KiB (QuickJS's default is 1 MiB). 256 KiB allows about
 * 1,300 levels of plain recursion. The deepest C recursions (the parser, JSON of deeply nested
 * values) can still exhaust V8's stack first; `runSandboxedCode` survives that by replacing the
 * WASM module.
 */
const MAX_STACK_BYTES = 256 * 1024;

/** Promise jobs run in batches, so a detached endless chain of jobs cannot hide a settled result. */
const JOBS_PER_BATCH = 100;

/** A stack frame in the user's code (QuickJS names it `<input>`), and the number of its first line. */
const USER_FRAME = /<input>:(\d+)/g;
const USER_FIRST_LINE = 3;

/** The part of `WebAssembly.Memory` used here; Node 20's types and our libs (no DOM) do not declare it. */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly.Memory;

interface SandboxModule {
  module: QuickJSWASMModule;
  memory: WasmMemory;
}

/** Modules (loaded or loading) by heap size in pages; a Map iterates oldest first. */
const modules = new Map<number, Promise<SandboxModule>>();

function heapPages(memoryMb: number): number {
  return Math.max(MIN_HEAP_PAGES, Math.ceil((HEAP_BASE_BYTES + memoryMb * MIB) / WASM_PAGE_BYTES));
}

/**
 * One WASM module per heap size, reused by every run of that size (a fresh runtime and context
 * each time; runs are synchronous, so a module never serves two at once).
 */
function loadModule(pages: number): Promise<SandboxModule> {
  const cached = modules.get(pages);
  if (cached) return cached;
  const memory = new WasmMemory({ initial: MIN_HEAP_PAGES, maximum: pages });
  const loading = newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory })).then((module) => ({
    module,
    memory,
  }));
  modules.set(pages, loading);
  loading.catch(() => dropModule(pages, loading));
  for (const oldest of modules.keys()) {
    if (modules.size <= MAX_CACHED_MODULES) break;
    modules.delete(oldest);
  }
  return loading;
}

function dropModule(pages: number, loading: Promise<SandboxModule>): void {
  if (modules.get(pages) === loading) modules.delete(pages);
}

/**
 * Runs user JavaScript in a fresh QuickJS WASM context: the code is the body of an async function
 * of `input` and returns a JSON value (`undefined` becomes `null`). There is no I/O: no `fetch`,
 * `require`, `process`, timers or modules; promises created in the sandbox may be awaited.
 *
 * Once the module is loaded the run is synchronous: it blocks the calling thread for up to
 * `timeoutMs` (a little more when a single built-in call, which QuickJS cannot interrupt, is
 * running at the deadline).
 *
 * @throws CodeRunError `code_timeout`, `code_memory`, `code_error` (with the user's line when
 * known) or `code_output` (the result is not JSON: a function, a cycle, a bigint).
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
      'code_memory',
      `the input does not fit in the memory limit of ${args.memoryMb} MB`,
    );
  }
  const pages = heapPages(args.memoryMb);
  const loading = loadModule(pages);
  const { module, memory } = await loading;
  try {
    return runInFreshContext(module, args, inputJson);
  } catch (error) {
    if (error instanceof CodeRunError) throw error;
    // A host exception thrown while WASM code ran (V8's stack limit, an emscripten abort) leaves
    // QuickJS half-way through an operation: the module can no longer be trusted, nor even
    // disposed. Dropping it lets the garbage collector take its memory.
    dropModule(pages, loading);
    if (error instanceof RangeError) {
      throw new CodeRunError('code_error', 'InternalError: stack overflow (the code nests too deeply)');
    }
    throw error;
  } finally {
    // A WASM heap never shrinks; a module whose heap grew is dropped so the memory goes back.
    if (memory.buffer.byteLength > MIN_HEAP_PAGES * WASM_PAGE_BYTES) dropModule(pages, loading);
  }
}

function runInFreshContext(
  module: QuickJSWASMModule,
  args: RunSandboxedCodeArgs,
  inputJson: string,
): { value: unknown; logs: CodeLogs } {
  const deadline = Date.now() + args.timeoutMs;
  const interruptAfterDeadline = shouldInterruptAfterDeadline(deadline);
  let timedOut = false;

  const runtime = module.newRuntime();
  const context = runtime.newContext();
  const handles: QuickJSHandle[] = [];
  const track = (handle: QuickJSHandle): QuickJSHandle => {
    handles.push(handle);
    return handle;
  };
  let healthy = true;
  try {
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler((rt) => {
      if (interruptAfterDeadline(rt)) timedOut = true;
      return timedOut;
    });

    const compiled = context.evalCode(HARNESS, 'weft-harness.js', { type: 'global' });
    if (compiled.error) {
      track(compiled.error);
      throw new Error('the sandbox harness did not compile');
    }
    const harness = track(compiled.value);
    // Host-made values go in before the per-allocation limit is set: QuickJS's string constructors
    // do not survive an allocation failure.
    const code = track(context.newString(args.code));
    const input = track(context.newString(inputJson));
    runtime.setMemoryLimit(args.memoryMb * MIB);

    const called = context.callFunction(harness, context.undefined, code, input);
    if (called.error) {
      track(called.error);
      throw failureWithoutReport(timedOut, args.timeoutMs);
    }
    const promise = track(called.value);

    for (;;) {
      const state = context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        // getPromiseState hands back the same handle when the value is not a promise.
        if (state.value !== promise) track(state.value);
        // The deadline's interrupt can land while the harness awaits user code, which then reports
        // it as an ordinary "InternalError: interrupted": once interrupted, it is a timeout.
        if (timedOut) throw timeoutError(args.timeoutMs);
        return readReport(context, runtime, state.value);
      }
      if (state.type === 'rejected') {
        track(state.error);
        throw failureWithoutReport(timedOut, args.timeoutMs);
      }
      if (timedOut || Date.now() > deadline) throw timeoutError(args.timeoutMs);
      if (!runtime.hasPendingJob()) {
        throw new CodeRunError(
          'code_error',
          'the code awaits a promise that never settles (the sandbox has no timers or I/O)',
        );
      }
      const jobs = runtime.executePendingJobs(JOBS_PER_BATCH);
      if (jobs.error) {
        track(jobs.error);
        throw failureWithoutReport(timedOut, args.timeoutMs);
      }
    }
  } catch (error) {
    healthy = error instanceof CodeRunError;
    throw error;
  } finally {
    // Disposing after a host exception would make emscripten abort; the module is dropped instead.
    if (healthy) {
      for (const handle of handles) if (handle.alive) handle.dispose();
      context.dispose();
      runtime.dispose();
    }
  }
}

/**
 * JSON with every non-ASCII character escaped: QuickJS then stores it as an 8-bit string, half
 * the size of a wide one, and its byte length is its length.
 */
function toAsciiJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function timeoutError(timeoutMs: number): CodeRunError {
  return new CodeRunError('code_timeout', `the code ran longer than ${timeoutMs} ms`);
}

/**
 * The harness turns every catchable failure into a report, so what escapes it is QuickJS's
 * uncatchable interrupt or an allocation failure in the harness itself.
 */
function failureWithoutReport(timedOut: boolean, timeoutMs: number): CodeRunError {
  return timedOut ? timeoutError(timeoutMs) : new CodeRunError('code_memory', 'the code ran out of memory');
}

/** Reads the harness's report; anything malformed is the user's code sabotaging it or a full heap. */
function readReport(
  context: QuickJSContext,
  runtime: QuickJSRuntime,
  handle: QuickJSHandle,
): { value: unknown; logs: CodeLogs } {
  if (context.typeof(handle) !== 'string') throw new Error('the sandbox harness returned a non-string');
  runtime.setMemoryLimit(-1);
  // QuickJS returns an empty string when it cannot allocate the copy; no report is empty.
  const report = context.getString(handle);
  const colon = report.indexOf(':');
  const kind = colon < 0 ? report : report.slice(0, colon);
  const body = report.slice(colon + 1);
  switch (kind) {
    case 'ok': {
      const newline = body.indexOf('\n');
      let value: unknown;
      try {
        value = JSON.parse(newline < 0 ? body : body.slice(0, newline));
      } catch {
        throw new CodeRunError('code_output', 'the result could not be read back as JSON');
      }
      return { value, logs: readCodeLogs(newline < 0 ? '' : body.slice(newline + 1)) };
    }
    case 'output':
      throw new CodeRunError(
        'code_output',
        `the result is not a JSON value: ${describeReported(body, false)}`,
      );
    case 'error':
      throw new CodeRunError('code_error', describeReported(body, true));
    default:
      throw new CodeRunError('code_memory', 'the code ran out of memory');
  }
}

/** `body` is the harness's JSON `[name, message, stack]`; gives `Error: boom (line 3)`. */
function describeReported(body: string, withLine: boolean): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const [name = '', message = '', stack = ''] = Array.isArray(parsed)
    ? parsed.map((part) => (typeof part === 'string' ? part : ''))
    : [];
  const head = name && message ? `${name}: ${message}` : name || message || 'unknown error';
  const line = withLine ? userLine(stack) : undefined;
  return line === undefined ? head : `${head} (line ${line})`;
}

/** The innermost frame in the user's code, as a line of that code counted from 1. */
function userLine(stack: string): number | undefined {
  for (const match of stack.matchAll(USER_FRAME)) {
    const line = Number(match[1]) - USER_FIRST_LINE + 1;
    if (line >= 1) return line;
  }
  return undefined;
}
