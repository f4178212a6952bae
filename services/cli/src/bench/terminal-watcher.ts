import type postgres from 'postgres';

const TERMINAL = ['success', 'partial', 'failed', 'cancelled'];

/**
 * Waits for executions to be recorded terminal in PostgreSQL: the moment a user's GET
 * /executions/{id} shows the outcome with every step row. One query every `intervalMs` asks about
 * all executions still awaited, so watching costs the database one cheap read per tick, whatever
 * the concurrency (and costs the Temporal server nothing, unlike a result long-poll per execution).
 */
export function createTerminalWatcher(sql: postgres.Sql, intervalMs = 2) {
  const awaited = new Map<string, (status: string) => void>();
  let polling = false;

  const poll = async () => {
    while (awaited.size > 0) {
      const ids = [...awaited.keys()];
      const rows = await sql<{ id: string; status: string }[]>`
        select id, status from executions where id = any(${ids}::uuid[]) and status = any(${TERMINAL})`;
      for (const row of rows) {
        awaited.get(row.id)?.(row.status);
        awaited.delete(row.id);
      }
      if (awaited.size > 0) await new Promise((r) => setTimeout(r, intervalMs));
    }
  };

  return {
    /** Resolves with the execution's terminal status once its record says so. */
    terminal(executionId: string): Promise<string> {
      const done = new Promise<string>((resolve) => awaited.set(executionId, resolve));
      if (!polling) {
        polling = true;
        void poll().finally(() => {
          polling = false;
        });
      }
      return done;
    },
  };
}
