import { isDeepStrictEqual } from 'node:util';
import { schema, withTenant } from '@weft/db';
import { and, eq } from 'drizzle-orm';
import type { VerbArgs } from '../context';
import { notFound, validationError } from '../errors';
import { loadPresentedSteps } from '../executions/get';
import { isUuid } from '../text';

export const STEP_CHANGES = ['same', 'changed', 'added', 'removed'] as const;
export type StepChange = (typeof STEP_CHANGES)[number];

type PresentedStep = Awaited<ReturnType<typeof loadPresentedSteps>>[number];

export interface ComparedNode {
  node_id: string;
  /** Null outside loops; loop body steps are compared item by item. */
  iteration: number | null;
  node_type: string;
  change: StepChange;
  before: unknown;
  after: unknown;
  before_status: string | null;
  after_status: string | null;
}

const keyOf = (nodeId: string, iteration: number | null) => `${nodeId}#${iteration ?? -1}`;

function graphNodes(graph: Record<string, unknown>): Map<string, string> {
  const nodes = (graph.nodes ?? []) as { id: string; type: string }[];
  return new Map(nodes.map((n) => [n.id, n.type]));
}

/** Same when both steps ended alike with equal outputs (and errors); JSON values, key order ignored. */
function sameStep(a: PresentedStep | undefined, b: PresentedStep | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.status === b.status && isDeepStrictEqual(a.output, b.output) && isDeepStrictEqual(a.error, b.error)
  );
}

/**
 * GET /executions/{id}/compare/{other_id}: node by node, `id` before and `other_id` after (DESIGN
 * §15). A node only the after graph has is `added`, one only the before graph has `removed`;
 * otherwise `same` or `changed` by status, output and error. Both must be runs of one workflow
 * (else 422): the comparison lines steps up by node id, which means nothing across workflows.
 */
export async function compareExecutions({ ctx, input }: VerbArgs<{ id: string; otherId: string }>) {
  if (!isUuid(input.id)) throw notFound('Execution');
  if (!isUuid(input.otherId)) throw notFound('Execution');
  const e = schema.executions;
  return withTenant(ctx.db, ctx.organizationId, async (tx) => {
    const load = async (id: string) => {
      const [row] = await tx
        .select({ id: e.id, workflowId: e.workflowId, graph: e.graph, version: e.workflowVersion })
        .from(e)
        .where(and(eq(e.id, id), eq(e.organizationId, ctx.organizationId)));
      if (!row) throw notFound('Execution');
      return row;
    };
    const before = await load(input.id);
    const after = await load(input.otherId);
    if (before.workflowId !== after.workflowId) {
      throw validationError(
        { other_id: ['This execution is a run of another workflow; compare runs of one workflow.'] },
        'Only executions of the same workflow can be compared.',
      );
    }
    const beforeSteps = await loadPresentedSteps(tx, before.id);
    const afterSteps = await loadPresentedSteps(tx, after.id);
    const beforeNodes = graphNodes(before.graph);
    const afterNodes = graphNodes(after.graph);
    const beforeByKey = new Map(beforeSteps.map((s) => [keyOf(s.node_id, s.iteration), s]));
    const afterByKey = new Map(afterSteps.map((s) => [keyOf(s.node_id, s.iteration), s]));
    // After's run order first, then after's nodes that have no step, then what only before has.
    const keys: { nodeId: string; iteration: number | null }[] = [];
    const seen = new Set<string>();
    const add = (nodeId: string, iteration: number | null) => {
      const key = keyOf(nodeId, iteration);
      if (seen.has(key)) return;
      seen.add(key);
      keys.push({ nodeId, iteration });
    };
    for (const s of afterSteps) add(s.node_id, s.iteration);
    for (const id of afterNodes.keys()) if (!afterSteps.some((s) => s.node_id === id)) add(id, null);
    for (const s of beforeSteps) add(s.node_id, s.iteration);
    for (const id of beforeNodes.keys()) if (!beforeSteps.some((s) => s.node_id === id)) add(id, null);

    const nodes: ComparedNode[] = keys.map(({ nodeId, iteration }) => {
      const a = beforeByKey.get(keyOf(nodeId, iteration));
      const b = afterByKey.get(keyOf(nodeId, iteration));
      const change: StepChange = !beforeNodes.has(nodeId)
        ? 'added'
        : !afterNodes.has(nodeId)
          ? 'removed'
          : sameStep(a, b)
            ? 'same'
            : 'changed';
      return {
        node_id: nodeId,
        iteration,
        node_type: b?.node_type ?? a?.node_type ?? afterNodes.get(nodeId) ?? beforeNodes.get(nodeId) ?? '',
        change,
        before: a?.output ?? null,
        after: b?.output ?? null,
        before_status: a?.status ?? null,
        after_status: b?.status ?? null,
      };
    });
    return {
      before_execution_id: before.id,
      after_execution_id: after.id,
      before_version: before.version,
      after_version: after.version,
      nodes,
    };
  });
}
