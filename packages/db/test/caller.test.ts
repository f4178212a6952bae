import { randomBytes } from 'node:crypto';
import {
  createApiKey,
  createOrganization,
  createSecretBox,
  createWorkflow,
  revokeApiKey,
  type ServiceContext,
  WorkflowInput,
} from '@weft/domain';
import { createTestDatabase, type TestDatabase } from '@weft/testing';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindCaller, type Caller, CallerRefused, confirmCaller } from '../src/caller';
import { connectDatabase, type DatabaseHandle } from '../src/client';
import { rowsOf } from '../src/rows';
import * as schema from '../src/schema';
import { queryInTenant, withTenant } from '../src/tenancy';

/**
 * The re-check of a cached API key inside the tenancy transaction (caller.ts, tenancy.ts), and the
 * one-round-trip tenancy transaction, against a real PostgreSQL as the runtime role.
 */

let t: TestDatabase;
const handles: DatabaseHandle[] = [];
let acme: { id: string; workflowId: string; keyId: string };
let globexKeyId: string;

const ctx = (organizationId: string): ServiceContext => ({ db: t.app.db, organizationId, actor: {} });
const callerFor = (apiKeyId: string, organizationId = acme.id, reliedOn: string[] = []): Caller => ({
  apiKeyId,
  organizationId,
  reliedOn,
  confirmed: false,
});

async function newKey(organizationId: string, permissions: ('*' | 'workflows.view' | 'workflows.delete')[]) {
  return createApiKey({ ctx: ctx(organizationId), input: { name: 'k', permissions } });
}

beforeAll(async () => {
  t = await createTestDatabase();
  const org = await createOrganization(t.app.db, { name: 'Acme' });
  const workflow = await createWorkflow({
    ctx: ctx(org.id),
    secrets: createSecretBox(randomBytes(32)),
    input: WorkflowInput.parse({
      name: 'Flow',
      trigger_type: 'trigger.manual',
      nodes: [{ id: 'a', type: 'action.transform', config: { assignments: [{ key: 'k', value: 'v' }] } }],
    }),
  });
  acme = { id: org.id, workflowId: workflow.id, keyId: (await newKey(org.id, ['*'])).id };
  const globex = await createOrganization(t.app.db, { name: 'Globex' });
  globexKeyId = (await newKey(globex.id, ['*'])).id;
});

afterAll(async () => {
  for (const h of handles) await h.close();
  await t?.drop();
});

const countWorkflows = (db: typeof t.app.db, caller: Caller) =>
  withTenant(bindCaller(db, caller), caller.organizationId, (tx) =>
    tx.select({ id: schema.workflows.id }).from(schema.workflows),
  );

describe('withTenant with a cached caller', () => {
  it('runs the work for a valid key holding the relied-on permissions, and marks the caller confirmed', async () => {
    const caller = callerFor(acme.keyId, acme.id, ['workflows.view']);
    expect(await countWorkflows(t.app.db, caller)).toHaveLength(1);
    expect(caller.confirmed).toBe(true);
  });

  it('refuses a revoked key (401) before the work runs: nothing the work wrote is kept', async () => {
    const key = await newKey(acme.id, ['*']);
    await revokeApiKey({ ctx: ctx(acme.id), input: { id: key.id } });
    const caller = callerFor(key.id);
    const attempt = withTenant(bindCaller(t.app.db, caller), acme.id, (tx) =>
      tx.execute(sql`update workflows set name = 'written by a revoked key'`),
    );
    await expect(attempt).rejects.toEqual(new CallerRefused('revoked'));
    expect(caller.confirmed).toBe(false);
    const [row] = await t.admin`select name from workflows where id = ${acme.workflowId}`;
    expect(row?.name).toBe('Flow');
  });

  it('refuses a key of another organization as if it did not exist', async () => {
    await expect(countWorkflows(t.app.db, callerFor(globexKeyId, acme.id))).rejects.toEqual(
      new CallerRefused('revoked'),
    );
  });

  it('refuses a key that no longer holds a relied-on permission (403), and accepts `*` for any', async () => {
    const narrow = await newKey(acme.id, ['workflows.view']);
    await expect(
      countWorkflows(t.app.db, callerFor(narrow.id, acme.id, ['workflows.view', 'workflows.delete'])),
    ).rejects.toEqual(new CallerRefused('forbidden'));
    expect(await countWorkflows(t.app.db, callerFor(acme.keyId, acme.id, ['workflows.delete']))).toHaveLength(
      1,
    );
  });

  it('sees a permission change committed just before (no caching inside PostgreSQL)', async () => {
    const key = await newKey(acme.id, ['*']);
    const caller = () => callerFor(key.id, acme.id, ['workflows.delete']);
    expect(await countWorkflows(t.app.db, caller())).toHaveLength(1);
    await t.admin`update api_keys set permissions = '{workflows.view}' where id = ${key.id}`;
    await expect(countWorkflows(t.app.db, caller())).rejects.toBeInstanceOf(CallerRefused);
  });
});

describe('confirmCaller (one statement, no transaction)', () => {
  it('confirms a valid key and refuses a revoked one or a missing permission', async () => {
    const ok = callerFor(acme.keyId);
    await confirmCaller(t.app.db, ok, ['audit.view']);
    expect(ok.confirmed).toBe(true);
    const narrow = await newKey(acme.id, ['workflows.view']);
    await expect(confirmCaller(t.app.db, callerFor(narrow.id), ['workflows.delete'])).rejects.toEqual(
      new CallerRefused('forbidden'),
    );
    await revokeApiKey({ ctx: ctx(acme.id), input: { id: narrow.id } });
    await expect(confirmCaller(t.app.db, callerFor(narrow.id))).rejects.toEqual(new CallerRefused('revoked'));
  });

  it('leaves no organization setting on the pooled connection', async () => {
    const pool = connectDatabase(t.appUrl, { max: 1 });
    handles.push(pool);
    await confirmCaller(pool.db, callerFor(acme.keyId));
    const [after] = await pool.sql`select (select count(*)::int from workflows) as n`;
    expect(after?.n).toBe(0);
  });
});

describe('queryInTenant (BEGIN, scope, statement and COMMIT in one write)', () => {
  const selectWorkflow = (id: string) =>
    sql`select * from ${schema.workflows} where ${schema.workflows.id} = ${id}`;

  it('runs the statement inside the organization: RLS shows the row only there', async () => {
    expect(await queryInTenant(t.app.db, acme.id, selectWorkflow(acme.workflowId))).toHaveLength(1);
    const other = await createOrganization(t.app.db, { name: 'Other' });
    expect(await queryInTenant(t.app.db, other.id, selectWorkflow(acme.workflowId))).toHaveLength(0);
  });

  it('maps rows (rowsOf) exactly as a drizzle select of the same row does', async () => {
    const raw = await queryInTenant(t.app.db, acme.id, selectWorkflow(acme.workflowId));
    const viaDrizzle = await withTenant(t.app.db, acme.id, (tx) =>
      tx.select().from(schema.workflows).where(eq(schema.workflows.id, acme.workflowId)),
    );
    const mapped = rowsOf(schema.workflows, raw);
    expect(mapped).toEqual(viaDrizzle);
    expect(mapped[0]?.createdAt).toBeInstanceOf(Date);
  });

  it('re-checks a cached caller and refuses a revoked one', async () => {
    const key = await newKey(acme.id, ['*']);
    const db = bindCaller(t.app.db, callerFor(key.id));
    expect(await queryInTenant(db, acme.id, selectWorkflow(acme.workflowId))).toHaveLength(1);
    await revokeApiKey({ ctx: ctx(acme.id), input: { id: key.id } });
    await expect(queryInTenant(db, acme.id, selectWorkflow(acme.workflowId))).rejects.toEqual(
      new CallerRefused('revoked'),
    );
  });

  it('leaves the pooled connection outside any transaction and organization, after success and failure', async () => {
    const pool = connectDatabase(t.appUrl, { max: 1 });
    handles.push(pool);
    await queryInTenant(pool.db, acme.id, selectWorkflow(acme.workflowId));
    await expect(queryInTenant(pool.db, acme.id, sql`select 1 / 0`)).rejects.toThrow(/division by zero/);
    await expect(
      queryInTenant(bindCaller(pool.db, callerFor(globexKeyId)), acme.id, selectWorkflow(acme.workflowId)),
    ).rejects.toBeInstanceOf(CallerRefused);
    const [after] = await pool.sql`
      select (select count(*)::int from workflows) as n,
             coalesce(current_setting('app.org_id', true), '') as setting`;
    // Two statements in one open transaction would share a transaction id.
    const [first] = await pool.sql`select pg_current_xact_id()::text as xid`;
    const [second] = await pool.sql`select pg_current_xact_id()::text as xid`;
    expect(second?.xid).not.toBe(first?.xid);
    expect(after).toEqual({ n: 0, setting: '' });
  });
});
