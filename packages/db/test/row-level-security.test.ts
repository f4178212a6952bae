import { randomBytes, randomUUID } from 'node:crypto';
import {
  authenticateApiKey,
  claimIdempotencyKey,
  createApiKey,
  createOrganization,
  createSecretBox,
  createUser,
  createWorkflow,
  hashApiKey,
  revokeApiKey,
  type ServiceContext,
  WorkflowInput,
} from '@weft/domain';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database, type DatabaseHandle } from '../src/client';
import * as schema from '../src/schema';
import { withTenant } from '../src/tenancy';
import { KNOWN_TENANT_TABLES, tenantTableStatus } from './tenant-catalog';

/**
 * Row-Level Security against a real PostgreSQL, connected as the runtime role weft_app
 * (a superuser would bypass RLS and prove nothing). The admin connection only seeds and looks
 * behind RLS to check what really happened.
 */

interface Seeded {
  id: string;
  workflowId: string;
  apiKeyId: string;
  key: string;
  userId: string;
}

let t: TestDatabase;
let A: Seeded;
let B: Seeded;
let tenantTables: string[];
/** A workflow of each organization, for version inserts. */
const anyWorkflowOf: Record<string, string> = {};
/** A user of no organization, for membership inserts (users are not a tenant table). */
let intruderUserId: string;
const extraHandles: DatabaseHandle[] = [];

const ctx = (organizationId: string): ServiceContext => ({ db: t.app.db, organizationId, actor: {} });

async function seedOrg(name: string): Promise<Seeded> {
  const org = await createOrganization(t.app.db, { name });
  const key = await createApiKey({ ctx: ctx(org.id), input: { name: `${name} key`, permissions: ['*'] } });
  const workflow = await createWorkflow({
    ctx: ctx(org.id),
    secrets: createSecretBox(randomBytes(32)),
    input: WorkflowInput.parse({
      name: `${name} flow`,
      trigger_type: 'trigger.manual',
      nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value: 'v' }] } }],
    }),
  });
  const user = await createUser({
    ctx: ctx(org.id),
    input: { email: `owner@${name.toLowerCase()}.test`, password: 'correct horse battery', role: 'admin' },
  });
  await t.admin`insert into invitations (id, organization_id, email, role, token_hash, expires_at)
    values (${randomUUID()}, ${org.id}, ${`invitee@${name.toLowerCase()}.test`}, 'viewer', ${randomUUID()}, now() + interval '1 day')`;
  await claimIdempotencyKey(ctx(org.id), createSecretBox(randomBytes(32)), {
    key: `idem-${name}`,
    method: 'POST',
    path: '/api/v1/workflows',
    requestHash: 'x'.repeat(64),
  });
  return { id: org.id, workflowId: workflow.id, apiKeyId: key.id, key: key.key, userId: user.id };
}

/** The PostgreSQL error behind a drizzle or postgres.js failure. */
async function pgError(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    let e = error as { code?: string; message: string; cause?: unknown };
    while (!e.code && e.cause) e = e.cause as typeof e;
    return e;
  }
  throw new Error('expected the query to fail, it succeeded');
}

const orgColumn = (table: string) => (table === 'organizations' ? 'id' : 'organization_id');

/** Rows per tenant table, as the owner sees them (behind RLS). */
async function adminCounts(orgId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of KNOWN_TENANT_TABLES) {
    const [row] = await t.admin.unsafe(
      `select count(*)::int as n from ${table} where ${orgColumn(table)} = $1`,
      [orgId],
    );
    out[table] = row?.n as number;
  }
  return out;
}

/** An INSERT of one row into `table` that belongs to `orgId`. */
function insertRow(table: string, orgId: string) {
  const id = randomUUID();
  switch (table) {
    case 'organizations':
      return sql`insert into organizations (id, name) values (${orgId}, 'Intruder')`;
    case 'memberships':
      return sql`insert into memberships (id, organization_id, user_id, role)
                 values (${id}, ${orgId}, ${intruderUserId}, 'admin')`;
    case 'workflow_versions':
      return sql`insert into workflow_versions (organization_id, workflow_id, version, snapshot)
                 values (${orgId}, ${anyWorkflowOf[orgId] ?? randomUUID()}, 999, '{}')`;
    case 'invitations':
      return sql`insert into invitations (id, organization_id, email, role, token_hash, expires_at)
                 values (${id}, ${orgId}, 'intruder@x.test', 'admin', ${id}, now() + interval '1 day')`;
    case 'api_keys':
      return sql`insert into api_keys (id, organization_id, name, key_hash, key_hint, permissions)
                 values (${id}, ${orgId}, 'intruder', ${id}, 'weft_…', ${'{*}'})`;
    case 'workflows':
      return sql`insert into workflows (id, organization_id, name, trigger_type, trigger_config, status, nodes, edges)
                 values (${id}, ${orgId}, 'intruder', 'manual', '{}', 'draft', '[]', '[]')`;
    case 'audit_logs':
      return sql`insert into audit_logs (id, organization_id, action, entity_type, entity_id)
                 values (${id}, ${orgId}, 'created', 'workflow', ${id})`;
    case 'idempotency_keys':
      return sql`insert into idempotency_keys (organization_id, key, method, path, request_hash, state, expires_at)
                 values (${orgId}, ${id}, 'POST', '/x', 'h', 'done', now() + interval '1 minute')`;
    default:
      throw new Error(`no insert statement for ${table}: add one to this test`);
  }
}

/** A harmless UPDATE that would touch every row of `orgId` in `table` (audit_logs has no UPDATE grant). */
const MUTABLE_COLUMN: Record<string, string> = {
  organizations: 'name',
  memberships: 'role',
  invitations: 'email',
  api_keys: 'name',
  workflows: 'name',
  idempotency_keys: 'path',
};

class Rollback extends Error {}

/** withTenant, rolled back at the end: for statements that must succeed but leave nothing behind. */
async function inTenantRolledBack(db: Database, orgId: string, work: Parameters<typeof withTenant>[2]) {
  await expect(
    withTenant(db, orgId, async (tx) => {
      await work(tx);
      throw new Rollback();
    }),
  ).rejects.toBeInstanceOf(Rollback);
}

beforeAll(async () => {
  t = await createTestDatabase();
  A = await seedOrg('Acme');
  B = await seedOrg('Globex');
  anyWorkflowOf[A.id] = A.workflowId;
  anyWorkflowOf[B.id] = B.workflowId;
  intruderUserId = randomUUID();
  await t.admin`insert into users (id, email, password_hash) values (${intruderUserId}, 'intruder@x.test', 'x')`;
  tenantTables = (await tenantTableStatus(t.admin)).map((s) => s.table);
});

afterAll(async () => {
  for (const h of extraHandles) await h.close();
  await t?.drop();
});

describe('seed (guards the tests below)', () => {
  it('both organizations have rows in every known tenant table', async () => {
    for (const org of [A, B]) {
      const counts = await adminCounts(org.id);
      for (const table of KNOWN_TENANT_TABLES)
        expect(counts[table], `${table} for ${org.id}`).toBeGreaterThan(0);
    }
  });

  it('the app connection is weft_app, not a superuser, and cannot bypass RLS', async () => {
    const [role] = await t.app.sql`
      select current_user as name, r.rolsuper as superuser, r.rolbypassrls as bypass
        from pg_roles r where r.rolname = current_user`;
    expect(role).toEqual({ name: 'weft_app', superuser: false, bypass: false });
    const [admin] = await t.admin`select current_user as name`;
    expect(admin?.name).not.toBe('weft_app');
  });
});

describe('no organization setting', () => {
  it('sees no rows on any tenant table, with raw SQL and with drizzle', async () => {
    expect(tenantTables).toEqual(expect.arrayContaining([...KNOWN_TENANT_TABLES]));
    for (const table of tenantTables) {
      const [row] = await t.app.sql.unsafe(`select count(*)::int as n from ${table}`);
      expect(row?.n, table).toBe(0);
    }
    expect(await t.app.db.select().from(schema.workflows)).toEqual([]);
    expect(await t.app.db.select().from(schema.apiKeys)).toEqual([]);
    expect(await t.app.db.select().from(schema.auditLogs)).toEqual([]);
    expect(await t.app.db.select().from(schema.organizations)).toEqual([]);
  });

  it('an empty setting means no rows, not an error', async () => {
    const rows = await t.app.sql.begin(async (tx) => {
      await tx`select set_config('app.org_id', '', true)`;
      return tx`select count(*)::int as n from workflows`;
    });
    expect(rows[0]?.n).toBe(0);
  });

  it('cannot insert, even a row of an existing organization', async () => {
    for (const table of KNOWN_TENANT_TABLES) {
      const error = await pgError(
        t.app.db.execute(insertRow(table, table === 'organizations' ? randomUUID() : A.id)),
      );
      expect(error.code, `${table}: ${error.message}`).toBe('42501');
      expect(error.message).toMatch(/row-level security/);
    }
  });

  it('updates and deletes touch nothing', async () => {
    const updated = await t.app.db.execute(sql`update workflows set name = 'pwned'`);
    const deleted = await t.app.db.execute(sql`delete from api_keys`);
    expect(updated.count).toBe(0);
    expect(deleted.count).toBe(0);
    expect((await adminCounts(A.id)).api_keys).toBeGreaterThan(0);
  });
});

describe("with organization A's setting", () => {
  it("sees its own rows and none of B's, on every tenant table", async () => {
    await withTenant(t.app.db, A.id, async (tx) => {
      for (const table of tenantTables) {
        const col = orgColumn(table);
        const rows = await tx.execute<{ mine: number; foreign: number }>(
          sql`select count(*) filter (where ${sql.identifier(col)} = ${A.id})::int as mine,
                     count(*) filter (where ${sql.identifier(col)} <> ${A.id})::int as foreign
                from ${sql.identifier(table)}`,
        );
        expect(rows[0]?.foreign, table).toBe(0);
        if ((KNOWN_TENANT_TABLES as readonly string[]).includes(table))
          expect(rows[0]?.mine, table).toBeGreaterThan(0);
      }
    });
  });

  it("cannot read B's rows by id", async () => {
    await withTenant(t.app.db, A.id, async (tx) => {
      const checks = [
        sql`select * from workflows where id = ${B.workflowId}`,
        sql`select * from api_keys where id = ${B.apiKeyId}`,
        sql`select * from memberships where user_id = ${B.userId}`,
        sql`select * from invitations where organization_id = ${B.id}`,
        sql`select * from organizations where id = ${B.id}`,
        sql`select * from audit_logs where organization_id = ${B.id}`,
        sql`select * from idempotency_keys where organization_id = ${B.id}`,
      ];
      for (const query of checks) expect(await tx.execute(query)).toHaveLength(0);
    });
  });

  it("cannot update B's rows: 0 rows affected, nothing changed", async () => {
    const before = await t.admin`select name, version from workflows where id = ${B.workflowId}`;
    await withTenant(t.app.db, A.id, async (tx) => {
      for (const [table, column] of Object.entries(MUTABLE_COLUMN)) {
        const result = await tx.execute(
          sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = 'pwned'
               where ${sql.identifier(orgColumn(table))} = ${B.id}`,
        );
        expect(result.count, table).toBe(0);
      }
      const unfiltered = await tx.execute(
        sql`update workflows set version = version + 100 where id = ${B.workflowId}`,
      );
      expect(unfiltered.count).toBe(0);
    });
    expect(await t.admin`select name, version from workflows where id = ${B.workflowId}`).toEqual(before);
    for (const [table, column] of Object.entries(MUTABLE_COLUMN)) {
      const [row] = await t.admin.unsafe(`select count(*)::int as n from ${table} where ${column} = 'pwned'`);
      expect(row?.n, table).toBe(0);
    }
  });

  it("cannot delete B's rows: 0 rows affected, all still there", async () => {
    const before = await adminCounts(B.id);
    await withTenant(t.app.db, A.id, async (tx) => {
      for (const table of Object.keys(MUTABLE_COLUMN)) {
        const result = await tx.execute(
          sql`delete from ${sql.identifier(table)} where ${sql.identifier(orgColumn(table))} = ${B.id}`,
        );
        expect(result.count, table).toBe(0);
      }
    });
    expect(await adminCounts(B.id)).toEqual(before);
  });

  it("cannot insert a row with B's organization_id (WITH CHECK), though the same insert works for A", async () => {
    const before = await adminCounts(B.id);
    for (const table of KNOWN_TENANT_TABLES) {
      const error = await pgError(withTenant(t.app.db, A.id, (tx) => tx.execute(insertRow(table, B.id))));
      expect(error.code, `${table}: ${error.message}`).toBe('42501');
      expect(error.message).toMatch(/row-level security/);
    }
    // Control: the statements are valid; with the organization's own id they pass the policy.
    for (const table of KNOWN_TENANT_TABLES.filter((x) => x !== 'organizations')) {
      await inTenantRolledBack(t.app.db, A.id, async (tx) => {
        expect((await tx.execute(insertRow(table, A.id))).count, table).toBe(1);
      });
    }
    expect(await adminCounts(B.id)).toEqual(before);
  });

  it("cannot create another organization's row, nor move its own row to B", async () => {
    const error = await pgError(
      withTenant(t.app.db, A.id, (tx) => tx.execute(insertRow('organizations', randomUUID()))),
    );
    expect(error.code).toBe('42501');
    const moved = await pgError(
      withTenant(t.app.db, A.id, (tx) =>
        tx.execute(sql`update workflows set organization_id = ${B.id} where id = ${A.workflowId}`),
      ),
    );
    expect(moved.code).toBe('42501');
    const [row] = await t.admin`select organization_id from workflows where id = ${A.workflowId}`;
    expect(row?.organization_id).toBe(A.id);
  });

  it('cannot switch RLS off or change its policy', async () => {
    const disable = await pgError(t.app.sql`alter table workflows disable row level security`);
    expect(disable.code).toBe('42501');
    const noForce = await pgError(t.app.sql`alter table workflows no force row level security`);
    expect(noForce.code).toBe('42501');
    const policy = await pgError(t.app.sql`drop policy tenant_isolation on workflows`);
    expect(policy.code).toBe('42501');
  });
});

describe('pooled connections', () => {
  it('a connection used by withTenant carries no organization into the next plain query', async () => {
    const pool = connectDatabase(t.appUrl, { max: 1 });
    extraHandles.push(pool);
    const inside = await withTenant(pool.db, A.id, async (tx) => {
      const [row] = await tx.execute<{ pid: number; n: number }>(
        sql`select pg_backend_pid() as pid, (select count(*)::int from workflows) as n`,
      );
      return row;
    });
    expect(inside?.n).toBeGreaterThan(0);

    const [after] = await pool.sql`
      select pg_backend_pid() as pid, (select count(*)::int from workflows) as n,
             coalesce(current_setting('app.org_id', true), '') as setting`;
    expect(after?.pid).toBe(inside?.pid); // the very same physical connection
    expect(after?.n).toBe(0);
    expect(after?.setting).toBe('');
    expect(await pool.db.select().from(schema.workflows)).toEqual([]);
  });

  it('a rolled-back withTenant leaves nothing behind either', async () => {
    const pool = connectDatabase(t.appUrl, { max: 1 });
    extraHandles.push(pool);
    await expect(
      withTenant(pool.db, A.id, async (tx) => {
        await tx.execute(sql`select 1`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [after] = await pool.sql`select count(*)::int as n from api_keys`;
    expect(after?.n).toBe(0);
  });

  it('control: a session-level setting WOULD leak, so the check above can fail', async () => {
    const pool = connectDatabase(t.appUrl, { max: 1 });
    extraHandles.push(pool);
    await pool.sql`select set_config('app.org_id', ${A.id}, false)`;
    const [leaked] = await pool.sql`select count(*)::int as n from workflows`;
    expect(leaked?.n).toBeGreaterThan(0);
    await pool.sql`reset app.org_id`;
    const [reset] = await pool.sql`select count(*)::int as n from workflows`;
    expect(reset?.n).toBe(0);
  });

  it('property: random interleavings of A and B transactions on a pool of 3 never see a foreign row', async () => {
    const pool = connectDatabase(t.appUrl, { max: 3 });
    extraHandles.push(pool);
    const orgs = { A: A.id, B: B.id } as const;
    const op = fc.record({
      org: fc.constantFrom('A', 'B', 'none'),
      sleepMs: fc.integer({ min: 0, max: 4 }),
      write: fc.boolean(),
      fail: fc.boolean(),
    });
    let writes = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 10 }), async (ops) => {
        const results = await Promise.allSettled(
          ops.map(async ({ org, sleepMs, write, fail }) => {
            if (org === 'none') {
              const rows = await pool.sql`
                select (select count(*)::int from workflows) + (select count(*)::int from api_keys)
                     + (select count(*)::int from audit_logs) as n`;
              expect(rows[0]?.n).toBe(0);
              return;
            }
            const orgId = orgs[org];
            await withTenant(pool.db, orgId, async (tx) => {
              if (sleepMs > 0) await tx.execute(sql`select pg_sleep(${sleepMs / 1000})`);
              if (write) {
                await tx.insert(schema.auditLogs).values({
                  organizationId: orgId,
                  action: 'created',
                  entityType: 'workflow',
                  entityId: 'property',
                });
                writes++;
              }
              const seen = await tx.execute<{ org: string }>(sql`
                select organization_id as org from workflows
                union all select organization_id from api_keys
                union all select organization_id from audit_logs
                union all select organization_id from memberships
                union all select id from organizations`);
              expect(seen.length).toBeGreaterThan(0);
              for (const row of seen) expect(row.org).toBe(orgId);
              const [setting] = await tx.execute<{ v: string }>(
                sql`select current_setting('app.org_id') as v`,
              );
              expect(setting?.v).toBe(orgId);
              if (fail) throw new Rollback();
            });
          }),
        );
        for (const r of results) {
          if (r.status === 'rejected' && !(r.reason instanceof Rollback)) throw r.reason;
        }
      }),
      { numRuns: 25 },
    );
    expect(writes).toBeGreaterThan(0);
    // The writes landed in the right organization.
    const [misplaced] = await t.admin`
      select count(*)::int as n from audit_logs a
       where entity_id = 'property' and organization_id not in (${A.id}, ${B.id})`;
    expect(misplaced?.n).toBe(0);
  });
});

describe('privileges of weft_app', () => {
  it('cannot read or write rate_limit_counters', async () => {
    const read = await pgError(t.app.sql`select * from rate_limit_counters`);
    expect(read.code).toBe('42501');
    expect(read.message).toMatch(/permission denied/);
    const write = await pgError(
      t.app.sql`insert into rate_limit_counters (bucket, window_start, count) values ('key:x', now(), 0)`,
    );
    expect(write.code).toBe('42501');
  });

  it('cannot UPDATE or DELETE audit_logs, even its own organization rows, but can INSERT and read them', async () => {
    const update = await pgError(
      withTenant(t.app.db, A.id, (tx) => tx.execute(sql`update audit_logs set action = 'forged'`)),
    );
    expect(update.code).toBe('42501');
    expect(update.message).toMatch(/permission denied/);
    const del = await pgError(withTenant(t.app.db, A.id, (tx) => tx.execute(sql`delete from audit_logs`)));
    expect(del.code).toBe('42501');
    const [row] = await t.admin`select count(*)::int as n from audit_logs where action = 'forged'`;
    expect(row?.n).toBe(0);

    await inTenantRolledBack(t.app.db, A.id, async (tx) => {
      expect((await tx.execute(insertRow('audit_logs', A.id))).count).toBe(1);
      expect((await tx.select().from(schema.auditLogs)).length).toBeGreaterThan(0);
    });
  });
});

describe('weft_authenticate_api_key', () => {
  const reserve = (keyUnits: number, orgUnits: number, keyLimit = 1000, orgLimit = 1000) => ({
    keyUnits,
    orgUnits,
    keyLimit,
    orgLimit,
  });

  it('finds the key without an org setting and reserves the units asked for the key and the organization', async () => {
    const calls: Awaited<ReturnType<typeof authenticateApiKey>>[] = [];
    for (let i = 0; i < 4; i++) calls.push(await authenticateApiKey(t.app.db, A.key, reserve(2, 3)));
    for (const auth of calls) {
      expect(auth).toMatchObject({ apiKeyId: A.apiKeyId, organizationId: A.id, permissions: ['*'] });
      expect(auth?.key?.granted).toBe(2);
      expect(auth?.org?.granted).toBe(3);
    }
    for (let i = 1; i < calls.length; i++) {
      const prev = calls[i - 1];
      const cur = calls[i];
      if (!prev?.key || !prev.org || !cur?.key || !cur.org) throw new Error('missing call');
      if (cur.windowStart.getTime() === prev.windowStart.getTime()) {
        expect(cur.key.count).toBe(prev.key.count + 2);
        expect(cur.org.count).toBe(prev.org.count + 3);
      } else {
        // A new one-minute window started between the two calls.
        expect(cur.key.count).toBe(2);
      }
    }
    const [counter] =
      await t.admin`select count from rate_limit_counters where bucket = ${`key:${A.apiKeyId}`}`;
    expect(counter?.count).toBe(calls.at(-1)?.key?.count);
    const [used] = await t.admin`select last_used_at from api_keys where id = ${A.apiKeyId}`;
    expect(used?.last_used_at).toBeInstanceOf(Date);
  });

  it('never reserves past a limit: a short grant, then none, and a refused reservation counts nothing', async () => {
    const org = await createOrganization(t.app.db, { name: 'Limited' });
    const key = await createApiKey({ ctx: ctx(org.id), input: { name: 'limited', permissions: ['*'] } });
    // The three calls must fall in one window (a calendar minute of the database clock): with less
    // than 15 s left (room for a busy machine), wait for the next one.
    const [clock] = await t.admin`select extract(second from now())::float8 as second`;
    const second = clock?.second as number;
    if (second > 45) await new Promise((r) => setTimeout(r, (60 - second) * 1000 + 200));
    const grants: [number | undefined, number | undefined][] = [];
    for (let i = 0; i < 3; i++) {
      const auth = await authenticateApiKey(t.app.db, key.key, reserve(3, 3, 5, 1000));
      grants.push([auth?.key?.granted, auth?.key?.count]);
    }
    expect(grants).toEqual([
      [3, 3],
      [2, 5],
      [0, 5],
    ]);
  });

  it('leaves a bucket asked for 0 units untouched (its count comes back null)', async () => {
    const org = await createOrganization(t.app.db, { name: 'Untouched' });
    const key = await createApiKey({ ctx: ctx(org.id), input: { name: 'untouched', permissions: ['*'] } });
    const auth = await authenticateApiKey(t.app.db, key.key, reserve(0, 4));
    expect(auth?.key).toBeNull();
    expect(auth?.org?.granted).toBe(4);
    const rows = await t.admin`select bucket from rate_limit_counters where bucket = ${`key:${key.id}`}`;
    expect(rows).toHaveLength(0);
  });

  it('counts a second key of the same organization separately for the key, together for the organization', async () => {
    const second = await createApiKey({
      ctx: ctx(A.id),
      input: { name: 'second', permissions: ['workflows.view'] },
    });
    const first = await authenticateApiKey(t.app.db, A.key, reserve(1, 1));
    const other = await authenticateApiKey(t.app.db, second.key, reserve(1, 1));
    expect(other).toMatchObject({
      apiKeyId: second.id,
      organizationId: A.id,
      permissions: ['workflows.view'],
    });
    if (!first?.org || !other?.key || !other.org) throw new Error('not authenticated');
    if (other.windowStart.getTime() === first.windowStart.getTime()) {
      expect(other.key.count).toBe(1);
      expect(other.org.count).toBe(first.org.count + 1);
    }
    const b = await authenticateApiKey(t.app.db, B.key, reserve(1, 1));
    expect(b?.organizationId).toBe(B.id);
    // A's two requests here are in A's count; B's own count does not include them. (Compared with the
    // second A request: if this minute's window began with the first, both organizations start at 1.)
    if (b?.org && b.windowStart.getTime() === other.windowStart.getTime())
      expect(b.org.count).toBeLessThan(other.org.count);
  });

  it('called directly as weft_app, returns the row for a valid hash and nothing for an unknown one', async () => {
    const found = await t.app
      .sql`select * from weft_authenticate_api_key(${hashApiKey(B.key)}, 1, 1, 10, 10)`;
    expect(found).toHaveLength(1);
    expect(found[0]?.organization_id).toBe(B.id);
    const before = await t.admin`select count(*)::int as n from rate_limit_counters`;
    const unknown = await t.app.sql`select * from weft_authenticate_api_key(${'0'.repeat(64)}, 1, 1, 10, 10)`;
    expect(unknown).toHaveLength(0);
    expect(await t.admin`select count(*)::int as n from rate_limit_counters`).toEqual(before);
  });

  it('its helper weft_reserve_rate_units cannot be called by weft_app', async () => {
    const denied = await pgError(
      t.app.sql`select * from weft_reserve_rate_units('key:x', 1000000, 1000000, now())`,
    );
    expect(denied.code).toBe('42501');
  });

  it('a revoked key returns no row', async () => {
    const doomed = await createApiKey({ ctx: ctx(B.id), input: { name: 'doomed', permissions: ['*'] } });
    expect(await authenticateApiKey(t.app.db, doomed.key, reserve(1, 1))).not.toBeNull();
    await revokeApiKey({ ctx: ctx(B.id), input: { id: doomed.id } });
    expect(await authenticateApiKey(t.app.db, doomed.key, reserve(1, 1))).toBeNull();
    const direct = await t.app
      .sql`select * from weft_authenticate_api_key(${hashApiKey(doomed.key)}, 1, 1, 10, 10)`;
    expect(direct).toHaveLength(0);
    // The other keys of the organization still work.
    expect((await authenticateApiKey(t.app.db, B.key, reserve(1, 1)))?.organizationId).toBe(B.id);
  });

  it("weft_user_memberships answers a user's own organizations and roles, without an org setting", async () => {
    const rows = await t.app.sql`select * from weft_user_memberships(${A.userId})`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ organization_id: A.id, role: 'admin' });
    expect(await t.app.sql`select * from weft_user_memberships(${randomUUID()})`).toHaveLength(0);
  });
});
