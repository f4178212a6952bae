// A sandbox thread's first module (pool.ts starts it). The services run their TypeScript through
// tsx (`node --import tsx`), which Node 20 does not carry into worker threads: the thread registers
// tsx's loader itself (the root package's dependency) before it loads its TypeScript entry.
import { register } from 'tsx/esm/api';

register();
await import('./sandbox-thread.ts');
