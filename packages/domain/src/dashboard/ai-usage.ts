import { queryInTenant } from '@weft/db';
import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../context';
import { estimateCostUsd } from './ai-prices';
import { SUMMARY_DAYS } from './summary';

interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Estimated from list prices; null when some tokens went to a model without a listed price. */
  cost_usd: number | null;
  /** Completed AI steps (action.ai.prompt, action.ai.agent). */
  steps: number;
}

const empty = (): Usage => ({ input_tokens: 0, output_tokens: 0, cost_usd: 0, steps: 0 });

function add(
  into: Usage,
  row: { model: string; input_tokens: number; output_tokens: number; steps: number },
) {
  into.input_tokens += row.input_tokens;
  into.output_tokens += row.output_tokens;
  into.steps += row.steps;
  const cost = estimateCostUsd(row.model, row.input_tokens, row.output_tokens);
  into.cost_usd = into.cost_usd === null || cost === null ? null : into.cost_usd + cost;
}

const AI_STEPS = sql`s.node_type in ('action.ai.prompt', 'action.ai.agent') and s.status = 'completed'
  and jsonb_typeof(s.output -> 'usage') = 'object'
  and e.mode = 'production'
  and e.started_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '13 days'`;

/**
 * Token usage and estimated cost of the AI nodes over the dashboard's 14 days (production runs):
 * for the organization, per workflow, per model, and the costliest executions. Read from the
 * completed steps' `usage` (an agent's sums all its model calls).
 */
export async function dashboardAiUsage(ctx: ServiceContext) {
  const rows = (await queryInTenant(
    ctx.db,
    ctx.organizationId,
    sql`select e.workflow_id, coalesce(w.name, '') as workflow_name, coalesce(s.output ->> 'model', '') as model,
               sum((s.output -> 'usage' ->> 'input_tokens')::bigint)::float8 as input_tokens,
               sum((s.output -> 'usage' ->> 'output_tokens')::bigint)::float8 as output_tokens,
               count(*)::int as steps
          from execution_steps s
          join executions e on e.id = s.execution_id
          left join workflows w on w.id = e.workflow_id
         where ${AI_STEPS}
         group by 1, 2, 3`,
  )) as {
    workflow_id: string;
    workflow_name: string;
    model: string;
    input_tokens: number;
    output_tokens: number;
    steps: number;
  }[];
  const top = (await queryInTenant(
    ctx.db,
    ctx.organizationId,
    sql`select s.execution_id, e.workflow_id, e.started_at, coalesce(s.output ->> 'model', '') as model,
               sum((s.output -> 'usage' ->> 'input_tokens')::bigint)::float8 as input_tokens,
               sum((s.output -> 'usage' ->> 'output_tokens')::bigint)::float8 as output_tokens,
               count(*)::int as steps
          from execution_steps s
          join executions e on e.id = s.execution_id
         where ${AI_STEPS}
         group by 1, 2, 3, 4
         order by sum((s.output -> 'usage' ->> 'input_tokens')::bigint + (s.output -> 'usage' ->> 'output_tokens')::bigint) desc
         limit 10`,
  )) as {
    execution_id: string;
    workflow_id: string;
    started_at: string | Date;
    model: string;
    input_tokens: number;
    output_tokens: number;
    steps: number;
  }[];

  const organization = empty();
  const workflows = new Map<string, Usage & { workflow_id: string; workflow_name: string }>();
  const models = new Map<string, Usage & { model: string }>();
  for (const row of rows) {
    add(organization, row);
    const w = workflows.get(row.workflow_id) ?? {
      workflow_id: row.workflow_id,
      workflow_name: row.workflow_name,
      ...empty(),
    };
    add(w, row);
    workflows.set(row.workflow_id, w);
    const m = models.get(row.model) ?? { model: row.model, ...empty() };
    add(m, row);
    models.set(row.model, m);
  }
  const byTokens = (a: Usage, b: Usage) =>
    b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens);
  return {
    days: SUMMARY_DAYS,
    organization,
    by_workflow: [...workflows.values()].sort(byTokens),
    by_model: [...models.values()].sort(byTokens),
    top_executions: top.map((row) => {
      const usage = empty();
      add(usage, row);
      return {
        execution_id: row.execution_id,
        workflow_id: row.workflow_id,
        started_at: new Date(row.started_at).toISOString(),
        ...usage,
      };
    }),
  };
}
