/**
 * What the web editor needs from the graph package: the expression parser, the pipes and roots for
 * autocomplete, rendering for previews, and the upstream rule the save-time check applies. Free of
 * zod and croner, so the browser bundle stays small.
 */
export {
  compileTemplate,
  EXECUTION_FIELDS,
  type ExpressionScope,
  type ExpressionTrace,
  findExpressions,
  isParsedExpression,
  LOOP_FIELDS,
  type ParsedExpression,
  PIPE_NAMES,
  PIPE_USAGE,
  renderTemplate,
  traceTemplate,
} from './interpolation';
export { upstreamOf } from './validate';
