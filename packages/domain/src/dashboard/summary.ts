import { queryInTenant } from '@weft/db';
import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../context';

export const SUMMARY_DAYS = 14;

/**
 * What the dashboard shows: production executions per UTC day and status over the last 14 days
 * (today included; test runs and replays are the workbench's, not the organization's traffic),
 * and active workflows per trigger type. One round trip; the counts use the
 * (organization, started_at) index.
 */
export async function dashboardSummary(ctx: ServiceContext) {
  const rows = await queryInTenant(
    ctx.db,
    ctx.organizationId,
    sql`select 'day' as kind, to_char(date_trunc('day', started_at at time zone 'UTC'), 'YYYY-MM-DD') as key,
               status as label, count(*)::int as n
          from executions
         where mode = 'production'
           and started_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '13 days'
         group by 2, 3
        union all
        select 'trigger', trigger_type, '', count(*)::int from workflows where status = 'active' group by 2`,
  );
  const days = new Map<string, Record<string, number>>();
  const today = new Date();
  for (let i = SUMMARY_DAYS - 1; i >= 0; i--) {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - i));
    days.set(day.toISOString().slice(0, 10), {});
  }
  const triggers: Record<string, number> = {};
  for (const row of rows as { kind: string; key: string; label: string; n: number }[]) {
    if (row.kind === 'trigger') triggers[row.key] = row.n;
    else {
      const counts = days.get(row.key);
      if (counts) counts[row.label] = row.n;
    }
  }
  return {
    days: [...days].map(([date, by_status]) => ({ date, by_status })),
    active_workflows_by_trigger: triggers,
  };
}
