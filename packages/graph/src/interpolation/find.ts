import { compileTemplate, type FoundExpression, isParsedExpression, type PathSegment } from './parse';
import { isPlainObject } from './values';

/**
 * Calls `visit` for every string inside a value (objects and arrays recursively; keys are not
 * templates), with the path of that string from the value's top.
 */
export function visitStrings(
  value: unknown,
  path: readonly PathSegment[],
  visit: (text: string, path: PathSegment[]) => void,
): void {
  if (typeof value === 'string') visit(value, [...path]);
  else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      visitStrings(item, [...path, i], visit);
    });
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) visitStrings(item, [...path, key], visit);
  }
}

/** A copy, so callers cannot change the compiled templates the cache shares. */
function copyExpression(expression: FoundExpression): FoundExpression {
  if (!isParsedExpression(expression)) return { ...expression };
  return {
    source: expression.source,
    root: expression.root,
    path: [...expression.path],
    pipes: expression.pipes.map((pipe) => ({ name: pipe.name, args: [...pipe.args] })),
  };
}

/**
 * Every `{{ … }}` in a value (strings inside objects and arrays too), parsed into root, path
 * segments and pipes with their arguments, or, when it does not parse, its source and the error.
 *
 * @example
 * findExpressions({ to: '{{ trigger.email | lower }}' })
 * // [{ source: '{{ trigger.email | lower }}', root: 'trigger', path: ['email'], pipes: [{ name: 'lower', args: [] }] }]
 */
export function findExpressions(value: unknown): FoundExpression[] {
  const found: FoundExpression[] = [];
  visitStrings(value, [], (text) => {
    if (!text.includes('{{')) return;
    for (const expression of compileTemplate(text).expressions) found.push(copyExpression(expression));
  });
  return found;
}
