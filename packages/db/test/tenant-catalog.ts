import type postgres from 'postgres';

/** Anything that runs a tagged query: a postgres.js pool, reserved connection or transaction. */
type Queryable = postgres.Sql | postgres.TransactionSql;

export interface TenantTableStatus {
  table: string;
  rowSecurity: boolean;
  forceRowSecurity: boolean;
  policies: number;
  /** Permissive policies (OR-ed together) whose USING or WITH CHECK does not use weft_current_org(). */
  loosePolicies: string[];
}

export interface TenantTableOffender {
  table: string;
  problems: string[];
}

/**
 * Tenant tables as the catalog sees them: every ordinary or partitioned table in schema public with
 * an `organization_id` column, plus `organizations` itself (its `id` is the organization id).
 */
export async function tenantTableStatus(sql: Queryable): Promise<TenantTableStatus[]> {
  const rows = await sql<
    {
      table: string;
      row_security: boolean;
      force_row_security: boolean;
      policies: number;
      loose_policies: string[];
    }[]
  >`
    select c.relname as table,
           c.relrowsecurity as row_security,
           c.relforcerowsecurity as force_row_security,
           (select count(*)::int from pg_policies p
             where p.schemaname = 'public' and p.tablename = c.relname) as policies,
           coalesce((select array_agg(p.policyname::text order by p.policyname) from pg_policies p
             where p.schemaname = 'public' and p.tablename = c.relname
               and p.permissive = 'PERMISSIVE'
               and ((p.cmd in ('ALL', 'SELECT', 'UPDATE', 'DELETE')
                     and coalesce(p.qual, '') not like '%weft_current_org()%')
                    or (p.cmd in ('ALL', 'INSERT', 'UPDATE')
                        and coalesce(p.with_check, p.qual, '') not like '%weft_current_org()%'))),
             '{}') as loose_policies
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public'
       and c.relkind in ('r', 'p')
       and (c.relname = 'organizations'
            or exists (select 1 from information_schema.columns col
                        where col.table_schema = 'public'
                          and col.table_name = c.relname
                          and col.column_name = 'organization_id'))
     order by c.relname`;
  return rows.map((r) => ({
    table: r.table,
    rowSecurity: r.row_security,
    forceRowSecurity: r.force_row_security,
    policies: r.policies,
    loosePolicies: r.loose_policies,
  }));
}

/** Tenant tables that RLS does not fully protect, each with what is missing. Empty when all is well. */
export async function findUnprotectedTenantTables(sql: Queryable): Promise<TenantTableOffender[]> {
  const offenders: TenantTableOffender[] = [];
  for (const t of await tenantTableStatus(sql)) {
    const problems: string[] = [];
    if (!t.rowSecurity) problems.push('ROW LEVEL SECURITY not enabled');
    if (!t.forceRowSecurity) problems.push('ROW LEVEL SECURITY not forced');
    if (t.policies === 0) problems.push('no policy');
    for (const p of t.loosePolicies) problems.push(`policy ${p} does not check weft_current_org()`);
    if (problems.length > 0) offenders.push({ table: t.table, problems });
  }
  return offenders;
}

/** The tenant tables the migrations create today; the catalog must find at least these. */
export const KNOWN_TENANT_TABLES = [
  'api_keys',
  'audit_logs',
  'idempotency_keys',
  'invitations',
  'memberships',
  'organizations',
  'workflow_versions',
  'workflows',
] as const;
