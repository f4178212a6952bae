import { visitStrings } from './interpolation/find';
import { compileTemplate, isParsedExpression, type ParsedExpression } from './interpolation/parse';
import { checkPipeCall } from './interpolation/pipes';
import { EXECUTION_FIELDS, EXPRESSION_ROOTS, LOOP_FIELDS } from './interpolation/scope';
import type { Graph, GraphIssue } from './schema';
import { upstreamOf } from './validate';

/** What an expression may refer to from one node: the graph's node ids and that node's ancestors. */
interface ReferenceContext {
  nodeId: string;
  nodeType: string;
  credentialNodeTypes: readonly string[];
  nodeIds: ReadonlySet<string>;
  upstream: () => ReadonlySet<string>;
}

const isOneOf = (list: readonly string[], value: string): boolean => list.includes(value);

/** An unclosed `{{` runs to the end of its string; keep messages short enough to read. */
const shorten = (source: string): string => (source.length > 80 ? `${source.slice(0, 77)}...` : source);

function problemsOfReference(expression: ParsedExpression, context: ReferenceContext): string[] {
  const { root, path } = expression;
  const source = shorten(expression.source);
  const first = path[0] === undefined ? undefined : String(path[0]);
  switch (root) {
    case 'trigger':
      return [];
    case 'nodes': {
      // `{{ nodes }}` alone names no node: it is the outputs of whatever ran before.
      if (first === undefined) return [];
      if (!context.nodeIds.has(first)) return [`${source} names node "${first}", which does not exist`];
      if (first === context.nodeId)
        return [`${source} names this node itself; a node cannot read its own output`];
      if (!context.upstream().has(first))
        return [
          `${source} names node "${first}", which is not upstream of this node, so its output may not exist yet; connect it before this node`,
        ];
      return [];
    }
    case 'loop':
      return first === undefined || isOneOf(LOOP_FIELDS, first)
        ? []
        : [`${source}: loop has no field "${first}" (use ${LOOP_FIELDS.join(', ')})`];
    case 'credentials':
      if (!context.credentialNodeTypes.includes(context.nodeType)) {
        return [
          context.credentialNodeTypes.length === 0
            ? `${source}: credentials cannot be used in expressions`
            : `${source}: credentials can be used only in ${context.credentialNodeTypes.join(', ')} nodes`,
        ];
      }
      return path.length === 2
        ? []
        : [`${source}: name a credential and one of its fields, like {{credentials.stripe.token}}`];
    case 'execution':
      return first === undefined || isOneOf(EXECUTION_FIELDS, first)
        ? []
        : [`${source}: execution has no field "${first}" (use ${EXECUTION_FIELDS.join(', ')})`];
    default:
      return [`${source} starts with unknown root "${root}"; use ${EXPRESSION_ROOTS.join(', ')}`];
  }
}

/**
 * Save-time checks of every `{{ … }}` in every node's config, so mistakes surface as a 422 when
 * the workflow is saved rather than as a failed run: malformed expressions, unknown roots,
 * unknown pipes and wrong pipe arguments, and `{{nodes.X…}}` naming a node that does not exist or
 * is not upstream of the node whose config holds the expression (its output might not exist yet).
 * Each issue's path is the config field holding the expression, e.g.
 * `['nodes', 2, 'config', 'assignments', 0, 'value']`. `{{credentials.…}}` is allowed only in the
 * node types given (the registry of @weft/nodes knows which).
 *
 * @example
 * checkGraphExpressions({ nodes: [{ id: 'a', type: 'action.transform', config: { v: '{{ x.y }}' }, on_failure: 'continue' }], edges: [] })
 * // [{ path: ['nodes', 0, 'config', 'v'], message: '{{ x.y }} starts with unknown root "x"; …' }]
 */
export function checkGraphExpressions(
  graph: Graph,
  options: { credentialNodeTypes?: readonly string[] } = {},
): GraphIssue[] {
  const credentialNodeTypes = options.credentialNodeTypes ?? [];
  const issues: GraphIssue[] = [];
  const nodeIds = new Set(graph.nodes.map((node) => node.id));
  graph.nodes.forEach((node, index) => {
    let upstream: Set<string> | undefined;
    const context: ReferenceContext = {
      nodeId: node.id,
      nodeType: node.type,
      credentialNodeTypes,
      nodeIds,
      upstream: () => {
        upstream ??= upstreamOf(graph, node.id);
        return upstream;
      },
    };
    visitStrings(node.config, ['nodes', index, 'config'], (text, path) => {
      if (!text.includes('{{')) return;
      for (const expression of compileTemplate(text).expressions) {
        if (!isParsedExpression(expression)) {
          issues.push({
            path,
            message: `malformed expression ${shorten(expression.source)}: ${expression.error}`,
          });
          continue;
        }
        for (const message of problemsOfReference(expression, context)) issues.push({ path, message });
        for (const pipe of expression.pipes) {
          const problem = checkPipeCall(pipe);
          if (problem !== undefined)
            issues.push({ path, message: `${shorten(expression.source)}: ${problem}` });
        }
      }
    });
  });
  return issues;
}
