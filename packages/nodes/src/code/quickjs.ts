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
import { CodeRunError, memoryError, timeoutError } from './errors';
import { HARNESS } from './harness';

/** One run as it crosses to the sandbox thread: the input is already JSON (see sandbox.ts). */
export interface SandboxJob {
  code: string;
  inputJson: string;
  timeoutMs: number;
  memoryMb: number;
}

export const MIB = 1024 * 1024;
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
 * which runs out first above roughly 400 KiB on a main thread (QuickJS's default is 1 MiB). 256 KiB
 * allows about 1,300 levels of plain recursion. The deepest C recursions (the parser, JSON of
 * deeply nested values) can still exhaust V8's stack first; `runQuickJs` survives that by
 * replacing the WASM module.
 */
const MAX_STACK_BYTES = 256 * 1024;

/** Promise jobs run in batches, so a detached endless chain of jobs cannot hide a settled result. */
const JOBS_PER_BATCH = 100;

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

/** Loads the module of a memory limit ahead of the first run that needs it. */
export async function preloadQuickJs(memoryMb: number): Promise<void> {
  await loadModule(heapPages(memoryMb));
}

/**
 * Runs user JavaScript in a fresh QuickJS WASM context and gives back the harness's report (see
 * harness.ts; report.ts reads it). Once the module is loaded the run is synchronous: it holds the
 * calling thread, which is why it runs on a sandbox thread (pool.ts), never on the event loop.
 *
 * @throws CodeRunError `code_timeout`, `code_memory_limit` or `code_error` (a stack overflow).
 * Anything else is the engine failing (a WASM trap): the module is dropped before it escapes.
 */
export async function runQuickJs(job: SandboxJob): Promise<string> {
  const pages = heapPages(job.memoryMb);
  const loading = loadModule(pages);
  const { module, memory } = await loading;
  try {
    return runInFreshContext(module, job, () => dropModule(pages, loading));
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

/** `broken` is called when disposing failed: the module aborted and must not serve another run. */
function runInFreshContext(module: QuickJSWASMModule, job: SandboxJob, broken: () => void): string {
  const deadline = Date.now() + job.timeoutMs;
  const interruptAfterDeadline = shouldInterruptAfterDeadline(deadline);
  let timedOut = false;

  const runtime = module.newRuntime();
  const context = runtime.newContext();
  const handles: QuickJSHandle[] = [];
  const track = (handle: QuickJSHandle): QuickJSHandle => {
    handles.push(handle);
    return handle;
  };
  /** The harness turns every catchable failure into a report: what escapes it is the interrupt or a full heap. */
  const failureWithoutReport = () => (timedOut ? timeoutError(job.timeoutMs) : memoryError());
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
      // On a starved CPU the deadline can pass before the harness is even compiled.
      if (timedOut) throw timeoutError(job.timeoutMs);
      throw new Error('the sandbox harness did not compile');
    }
    const harness = track(compiled.value);
    // Host-made values go in before the per-allocation limit is set: QuickJS's string constructors
    // do not survive an allocation failure.
    const code = track(context.newString(job.code));
    const input = track(context.newString(job.inputJson));
    runtime.setMemoryLimit(job.memoryMb * MIB);

    const called = context.callFunction(harness, context.undefined, code, input);
    if (called.error) {
      track(called.error);
      throw failureWithoutReport();
    }
    const promise = track(called.value);

    for (;;) {
      const state = context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        // getPromiseState hands back the same handle when the value is not a promise.
        if (state.value !== promise) track(state.value);
        // The deadline's interrupt can land while the harness awaits user code, which then reports
        // it as an ordinary "InternalError: interrupted": once interrupted, it is a timeout.
        if (timedOut) throw timeoutError(job.timeoutMs);
        if (context.typeof(state.value) !== 'string')
          throw new Error('the sandbox harness returned a non-string');
        runtime.setMemoryLimit(-1);
        // QuickJS returns an empty string when it cannot allocate the copy; report.ts reads that as a full heap.
        return context.getString(state.value);
      }
      if (state.type === 'rejected') {
        track(state.error);
        throw failureWithoutReport();
      }
      if (timedOut || Date.now() > deadline) throw timeoutError(job.timeoutMs);
      if (!runtime.hasPendingJob()) {
        throw new CodeRunError(
          'code_error',
          'the code awaits a promise that never settles (the sandbox has no timers or I/O)',
        );
      }
      const jobs = runtime.executePendingJobs(JOBS_PER_BATCH);
      if (jobs.error) {
        track(jobs.error);
        throw failureWithoutReport();
      }
    }
  } catch (error) {
    healthy = error instanceof CodeRunError;
    throw error;
  } finally {
    // Disposing after a host exception would make emscripten abort; the module is dropped instead.
    if (healthy) disposeAll(handles, context, runtime, broken);
  }
}

/**
 * Frees a finished run. After an out-of-memory in the middle of an operation QuickJS can be left
 * holding an object it lost track of, and freeing the runtime then aborts (emscripten throws a
 * WebAssembly `RuntimeError: Aborted(Assertion failed: list_empty(&rt->gc_obj_list) ...)`). The
 * run's outcome is already known by then, so it stands; only the module is dropped.
 */
function disposeAll(
  handles: QuickJSHandle[],
  context: QuickJSContext,
  runtime: QuickJSRuntime,
  broken: () => void,
): void {
  try {
    for (const handle of handles) if (handle.alive) handle.dispose();
    context.dispose();
    runtime.dispose();
  } catch {
    broken();
  }
}
