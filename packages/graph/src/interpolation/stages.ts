import { compileTemplate, isParsedExpression, type PathSegment } from './parse';
import { applyPipe } from './pipes';
import { resolvePath } from './resolve';
import type { ExpressionScope, RenderOptions } from './scope';

/** One step of an expression's evaluation: its path, then each pipe, with the value after it. */
export interface ExpressionStage {
  /** `trigger.items[0].sku`, then `| upper`, `| default:none`, … */
  label: string;
  value: unknown;
}

/** An expression of a template and how its value came about, stage by stage. */
export interface ExpressionTrace {
  source: string;
  stages: ExpressionStage[];
  /** Why it yields null: it does not parse, or a pipe does not exist or grew too large. */
  error?: string;
}

const pathLabel = (root: string, path: readonly PathSegment[]) =>
  root + path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`)).join('');

/**
 * Each expression of a template evaluated as renderTemplate does, keeping the value after the path
 * and after every pipe: what the editor's live preview shows under a field ("pipes stage by
 * stage"), computed in the browser by the same code the engine runs.
 */
export function traceTemplate(
  template: string,
  scope: ExpressionScope,
  options: RenderOptions,
): ExpressionTrace[] {
  return compileTemplate(template).expressions.map((expression) => {
    if (!isParsedExpression(expression))
      return { source: expression.source, stages: [], error: expression.error };
    let value = resolvePath(scope, expression.root, expression.path);
    const stages: ExpressionStage[] = [{ label: pathLabel(expression.root, expression.path), value }];
    for (const pipe of expression.pipes) {
      try {
        value = applyPipe(value, pipe, options, expression.source);
      } catch (error) {
        return { source: expression.source, stages, error: (error as Error).message };
      }
      stages.push({ label: `| ${[pipe.name, ...pipe.args].join(':')}`, value });
    }
    return { source: expression.source, stages };
  });
}
