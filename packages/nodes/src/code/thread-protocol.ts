import type { CodeRunErrorCode } from './errors';

/** What a sandbox thread is started with. */
export interface ThreadData {
  /** The memory limit whose QuickJS module the thread loads before it says it is ready. */
  preloadMemoryMb: number;
}

/** The messages a sandbox thread sends: `ready` once, then one answer per job. */
export type ThreadAnswer =
  | { type: 'ready' }
  | { type: 'report'; report: string }
  | { type: 'failure'; code: CodeRunErrorCode; message: string }
  /** The engine itself failed (a WASM trap): the thread is replaced. */
  | { type: 'crashed'; message: string };
