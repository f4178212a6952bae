import type { Hono } from 'hono';

export interface ReadinessChecks {
  /** Each resolves when its dependency answers. */
  database: () => Promise<unknown>;
  temporal: () => Promise<unknown>;
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

/** Readiness: PostgreSQL and Temporal both answer within 2 s; 503 otherwise, naming which failed. */
export function registerReadyz(app: Hono, checks: ReadinessChecks) {
  app.get('/readyz', async (c) => {
    const [database, temporal] = await Promise.all([
      answersWithin(checks.database, 2000),
      answersWithin(checks.temporal, 2000),
    ]);
    const ready = database && temporal;
    return c.json(
      {
        status: ready ? 'ready' : 'unavailable',
        checks: { database: database ? 'ok' : 'down', temporal: temporal ? 'ok' : 'down' },
      },
      ready ? 200 : 503,
    );
  });
}
