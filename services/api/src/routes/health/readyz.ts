import type { Hono } from 'hono';

export interface ReadinessChecks {
  /** Each resolves when its dependency answers. */
  database: () => Promise<unknown>;
  temporal: () => Promise<unknown>;
  /**
   * The separate worker process, when a supervisor runs one (`weft up`, split layout): `ok` or
   * what it is doing instead (`starting`, `restarting`, `down`). Absent: not reported.
   */
  worker?: () => Promise<string>;
}

function answersWithin(check: () => Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([
    check().then(
      (result) => result !== false,
      () => false,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Readiness: PostgreSQL and Temporal both answer within 2 s (and the worker, where one is
 * supervised, runs); 503 otherwise, naming which failed. A stopped worker makes the stack not
 * ready even though the API still accepts executions: they wait in Temporal until it is back.
 */
export function registerReadyz(app: Hono, checks: ReadinessChecks) {
  app.get('/readyz', async (c) => {
    const [database, temporal, worker] = await Promise.all([
      answersWithin(checks.database, 2000),
      answersWithin(checks.temporal, 2000),
      checks.worker?.().catch(() => 'down'),
    ]);
    const ready = database && temporal && (worker === undefined || worker === 'ok');
    return c.json(
      {
        status: ready ? 'ready' : 'unavailable',
        checks: {
          database: database ? 'ok' : 'down',
          temporal: temporal ? 'ok' : 'down',
          ...(worker === undefined ? {} : { worker }),
        },
      },
      ready ? 200 : 503,
    );
  });
}
