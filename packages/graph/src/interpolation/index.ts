export { findExpressions } from './find';
export {
  ExpressionTooLargeError,
  MAX_EXPRESSION_LIST_ITEMS,
  MAX_EXPRESSION_TEXT_LENGTH,
} from './limits';
export {
  type CompiledTemplate,
  compileTemplate,
  type FoundExpression,
  isParsedExpression,
  type MalformedExpression,
  type ParsedExpression,
  type PathSegment,
  type PipeCall,
} from './parse';
export { formatPhpDate, parseDateInput } from './php-date';
export { checkPipeCall, PIPE_NAMES, PIPE_USAGE, UnknownPipeError } from './pipes';
export { renderTemplate, renderValue } from './render';
export { resolvePath } from './resolve';
export {
  EXECUTION_FIELDS,
  EXPRESSION_ROOTS,
  type ExpressionRoot,
  type ExpressionScope,
  LOOP_FIELDS,
  type RenderOptions,
  referencesCredentials,
} from './scope';
export { type ExpressionStage, type ExpressionTrace, traceTemplate } from './stages';
