import { createTestDatabase, type TestDatabase } from '@weft/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnprotectedTenantTables, KNOWN_TENANT_TABLES, tenantTableStatus } from './tenant-catalog';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.drop());

class Rollback extends Error {}

/** Runs `work` in an admin transaction that is always rolled back. */
async function inRolledBackTransaction(work: (tx: postgres.TransactionSql) => Promise<void>) {
  await expect(
    t.admin.begin(async (tx) => {
      await work(tx);
      throw new Rollback();
    }),
  ).rejects.toBeInstanceOf(Rollback);
}

describe('tenant table catalog', () => {
  // The catalog is read as the owner: information_schema only shows the runtime role the tables it
  // has privileges on, which would hide a tenant table nobody granted.
  it('finds at least the tenant tables of the migrations, and not rate_limit_counters', async () => {
    const tables = (await tenantTableStatus(t.admin)).map((s) => s.table);
    expect(tables).toEqual(expect.arrayContaining([...KNOWN_TENANT_TABLES]));
    expect(tables).not.toContain('rate_limit_counters');
  });

  it('every tenant table has RLS enabled and forced, and a policy on weft_current_org()', async () => {
    expect(await findUnprotectedTenantTables(t.admin)).toEqual([]);
  });

  it('the check reports a new tenant table at every step until it is protected', async () => {
    await inRolledBackTransaction(async (tx) => {
      await tx`create table throwaway_tenant_probe (id uuid primary key, organization_id uuid not null)`;
      const probe = async () =>
        (await findUnprotectedTenantTables(tx)).find((o) => o.table === 'throwaway_tenant_probe')?.problems;

      expect(await probe()).toEqual([
        'ROW LEVEL SECURITY not enabled',
        'ROW LEVEL SECURITY not forced',
        'no policy',
      ]);

      await tx`alter table throwaway_tenant_probe enable row level security`;
      expect(await probe()).toEqual(['ROW LEVEL SECURITY not forced', 'no policy']);

      await tx`alter table throwaway_tenant_probe force row level security`;
      expect(await probe()).toEqual(['no policy']);

      // A permissive policy that ignores the organization would open every row (policies are OR-ed).
      await tx`create policy everyone on throwaway_tenant_probe using (true)`;
      expect(await probe()).toEqual(['policy everyone does not check weft_current_org()']);

      await tx`create policy tenant_isolation on throwaway_tenant_probe
                 using (organization_id = weft_current_org())
                 with check (organization_id = weft_current_org())`;
      expect(await probe()).toEqual(['policy everyone does not check weft_current_org()']);

      await tx`drop policy everyone on throwaway_tenant_probe`;
      expect(await probe()).toBeUndefined();

      // The real tables stay clean throughout.
      expect((await findUnprotectedTenantTables(tx)).map((o) => o.table)).toEqual([]);
    });
    const [left] = await t.admin`select to_regclass('public.throwaway_tenant_probe') as oid`;
    expect(left?.oid).toBeNull();
  });

  it('reports a policy whose WITH CHECK does not use the organization', async () => {
    await inRolledBackTransaction(async (tx) => {
      await tx`create table throwaway_tenant_probe (id uuid primary key, organization_id uuid not null)`;
      await tx`alter table throwaway_tenant_probe enable row level security`;
      await tx`alter table throwaway_tenant_probe force row level security`;
      await tx`create policy half on throwaway_tenant_probe
                 using (organization_id = weft_current_org()) with check (true)`;
      const offenders = await findUnprotectedTenantTables(tx);
      expect(offenders).toContainEqual({
        table: 'throwaway_tenant_probe',
        problems: ['policy half does not check weft_current_org()'],
      });
    });
  });

  it('the runtime role cannot TRUNCATE a tenant table (TRUNCATE ignores RLS)', async () => {
    const rows = await t.admin<{ table: string; truncate: boolean; trigger: boolean }[]>`
      select c.relname as table,
             has_table_privilege('weft_app', c.oid, 'TRUNCATE') as truncate,
             has_table_privilege('weft_app', c.oid, 'TRIGGER') as trigger
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('r', 'p')`;
    expect(rows.length).toBeGreaterThanOrEqual(KNOWN_TENANT_TABLES.length);
    expect(rows.filter((r) => r.truncate || r.trigger).map((r) => r.table)).toEqual([]);
  });

  it('the runtime role owns no table (owners can switch RLS off)', async () => {
    const rows = await t.admin`
      select tablename from pg_tables where schemaname = 'public' and tableowner = 'weft_app'`;
    expect(rows.map((r) => r.tablename)).toEqual([]);
  });

  it('no view in public bypasses RLS (a view runs as its owner unless security_invoker)', async () => {
    const rows = await t.admin`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relkind in ('v', 'm')
         and not coalesce('security_invoker=true' = any (c.reloptions), false)`;
    expect(rows.map((r) => r.relname)).toEqual([]);
  });

  it('SECURITY DEFINER functions are the reviewed ones, pin search_path and are not executable by PUBLIC', async () => {
    const rows = await t.admin<{ name: string; config: string[] | null; public_exec: boolean }[]>`
      select p.proname as name, p.proconfig as config,
             exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                      where a.grantee = 0 and a.privilege_type = 'EXECUTE') as public_exec
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'public' and p.prosecdef
       order by p.proname`;
    // A new function that looks across organizations must be reviewed and added here.
    expect(rows.map((r) => r.name)).toEqual([
      'weft_approval_organization',
      'weft_authenticate_api_key',
      'weft_authenticate_session',
      'weft_count_request',
      'weft_execution_organization',
      'weft_find_chat_module',
      'weft_find_gateway_chat_module',
      'weft_find_hook',
      'weft_find_invitation',
      'weft_list_cloud_chat_modules',
      'weft_list_inline_secret_candidates',
      'weft_list_timed_workflows',
      'weft_list_unstarted_deliveries',
      'weft_prune_agent_memory',
      'weft_prune_audit_logs',
      'weft_prune_chat_inbound_messages',
      'weft_prune_executions',
      'weft_prune_expired_records',
      'weft_prune_hook_receipts',
      'weft_prune_local_call_results',
      'weft_prune_poll_seen_items',
      'weft_prune_rate_limit_counters',
      'weft_prune_webhook_deliveries',
      'weft_sealed_value_samples',
      'weft_user_memberships',
    ]);
    for (const r of rows) {
      expect(r.config ?? [], r.name).toContainEqual(expect.stringMatching(/^search_path=/));
      expect(r.public_exec, r.name).toBe(false);
    }
  });
});
