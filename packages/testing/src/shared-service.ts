/**
 * A service the global set-ups of several vitest projects share (the integration and browser
 * projects both need PostgreSQL and Temporal): started by the first project's set-up, stopped by
 * the last teardown. Set-up modules are loaded once per project, so the registry lives on globalThis.
 */
interface Entry {
  value: Promise<{ value: unknown; stop: () => Promise<void> }>;
  users: number;
}

const holder = globalThis as { __weftTestServices?: Map<string, Entry> };
holder.__weftTestServices ??= new Map();
const registry = holder.__weftTestServices;

export async function acquireShared<T>(
  key: string,
  start: () => Promise<{ value: T; stop: () => Promise<void> }>,
): Promise<{ value: T; release: () => Promise<void> }> {
  let entry = registry.get(key);
  if (!entry) {
    entry = { value: start(), users: 0 };
    registry.set(key, entry);
  }
  entry.users++;
  const started = await entry.value.catch((error: unknown) => {
    registry.delete(key);
    throw error;
  });
  const current = entry;
  return {
    value: started.value as T,
    async release() {
      if (--current.users > 0) return;
      registry.delete(key);
      await started.stop();
    },
  };
}
