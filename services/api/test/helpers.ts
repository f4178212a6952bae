import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApp, createHttpServer } from '@weft/api';
import type { TestApi } from '@weft/testing';
import type { Hono } from 'hono';
import { expect } from 'vitest';

type Sql = TestApi['db']['admin'];

/**
 * Another API replica on the test database: its own process-local state (key cache, rate-limit
 * leases) over the same PostgreSQL, as a second server process would have.
 */
export function createReplica(api: TestApi, limits: { perKey?: number; perOrg?: number } = {}) {
  return createApp({
    db: api.db.app.db,
    env: {
      APP_URL: 'http://localhost:3000',
      MAX_BODY_BYTES: 1024 * 1024,
      RATE_LIMIT_PER_KEY: limits.perKey ?? 100_000,
      RATE_LIMIT_PER_ORG: limits.perOrg ?? 100_000,
      TRUST_PROXY_HOPS: 0,
    },
    temporalReady: async () => true,
    logError: () => {},
  });
}

/** A valid workflow body (the same shape as workflows.test.ts uses). */
export const validWorkflow = {
  name: 'Welcome new leads',
  description: 'Greets every new lead',
  trigger_type: 'event',
  trigger_config: { event: 'lead.created' },
  status: 'active',
  nodes: [
    {
      id: 'greet',
      type: 'action.transform',
      config: { assignments: [{ key: 'msg', value: 'Hi {{trigger.name}}' }] },
    },
  ],
  edges: [],
};

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export async function readJson(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected a JSON body, got ${res.status}: ${text.slice(0, 200)}`);
  }
}

/** Marks of a leaked stack trace or SQL statement in a response body. */
const LEAKS: RegExp[] = [
  /\bat [\w$.<>]+ \(/, // "at fn (" stack frame
  /\bat (file:\/\/|\/)[^\s]+:\d+/, // "at /path/file.ts:12"
  /node_modules/,
  /\.ts:\d+:\d+/,
  /\bselect\b[\s\S]*\bfrom\b/i,
  /\binsert into\b/i,
  /\bupdate "?\w+"? set\b/i,
  /\bdelete from\b/i,
  /violates|syntax error at|relation "|column "|invalid input syntax|PostgresError/i,
];

export function expectNoLeak(text: string) {
  for (const pattern of LEAKS) expect(text, `response leaks ${pattern}`).not.toMatch(pattern);
}

/** Asserts the error envelope `{error: {code, message, fields, request_id}}`, the status, and that nothing leaks. */
export async function expectError(res: Response, status: number, code?: string): Promise<any> {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(status);
  expectNoLeak(text);
  const body = JSON.parse(text);
  expect(body).toEqual({
    error: {
      code: expect.any(String),
      message: expect.any(String),
      fields: expect.any(Object),
      request_id: expect.any(String),
    },
  });
  expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
  if (code) expect(body.error.code).toBe(code);
  for (const messages of Object.values(body.error.fields)) {
    expect(Array.isArray(messages)).toBe(true);
    for (const m of messages as unknown[]) expect(typeof m).toBe('string');
  }
  return body;
}

/** Any 4xx in the envelope, never a 5xx. */
export async function expectClientError(res: Response): Promise<any> {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.status, text.slice(0, 300)).toBeLessThan(500);
  expectNoLeak(text);
  const body = JSON.parse(text);
  expect(body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  expect(typeof body.error.fields).toBe('object');
  return body;
}

export async function countRows(admin: Sql, table: string, organizationId?: string) {
  const rows = organizationId
    ? await admin`select count(*)::int as n from ${admin(table)} where organization_id = ${organizationId}`
    : await admin`select count(*)::int as n from ${admin(table)}`;
  return rows[0]?.n as number;
}

/**
 * Rate-limit windows are calendar minutes of the database clock. A test that counts requests
 * waits for a fresh minute when fewer than `needSeconds` remain, so the window cannot roll over.
 */
export async function waitForRoomInMinute(admin: Sql, needSeconds = 10) {
  const [row] = await admin`select extract(epoch from now())::float8 as now`;
  const seconds = (row?.now as number) % 60;
  if (60 - seconds < needSeconds) {
    await new Promise((resolve) => setTimeout(resolve, (60 - seconds) * 1000 + 200));
  }
}

/** Serves the app over a real socket on 127.0.0.1 (port chosen by the OS). */
export async function listen(app: Hono): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
