import { ExpressionTooLargeError, MAX_EXPRESSION_TEXT_LENGTH, textTooLarge } from './limits';
import { compileTemplate, type FoundExpression, isParsedExpression } from './parse';
import { applyPipe } from './pipes';
import { resolvePath } from './resolve';
import type { ExpressionScope, RenderOptions } from './scope';
import { isPlainObject, toText } from './values';

/** The value of one expression: its path resolved, then its pipes applied left to right. */
function evaluate(expression: FoundExpression, scope: ExpressionScope, options: RenderOptions): unknown {
  if (!isParsedExpression(expression)) return null;
  let value = resolvePath(scope, expression.root, expression.path);
  for (const pipe of expression.pipes) value = applyPipe(value, pipe, options, expression.source);
  return value;
}

/**
 * Renders one template string. A template that is exactly one `{{ … }}` yields the resolved value
 * with its type (object, array, number, boolean, null); otherwise the result is a string in which
 * objects and arrays appear as JSON and null as nothing. A missing path, an unknown root and a
 * malformed expression yield null; an unclosed `{{` stays as text.
 *
 * Throws {@link UnknownPipeError}, for a pipe that does not exist (saving a workflow rejects those),
 * and {@link ExpressionTooLargeError} when a pipe or the mixed text grows over the limits (limits.ts).
 *
 * @example
 * renderTemplate('{{ trigger.items }}', scope, options) // [{ sku: 'A1' }] (the array itself)
 * renderTemplate('Hi {{ trigger.name | upper }}!', scope, options) // 'Hi ADA!'
 */
export function renderTemplate(template: string, scope: ExpressionScope, options: RenderOptions): unknown {
  if (!template.includes('{{')) return template;
  const { parts, single } = compileTemplate(template);
  if (single && parts[0]?.kind === 'expression') return evaluate(parts[0].expression, scope, options);
  let text = '';
  for (const part of parts) {
    text += part.kind === 'text' ? part.text : toText(evaluate(part.expression, scope, options));
    if (text.length > MAX_EXPRESSION_TEXT_LENGTH) throw textTooLarge('the template');
  }
  return text;
}

/**
 * Renders every string inside a value: objects and arrays recursively, keys untouched, other values
 * as they are. Returns new objects and arrays; the input is never modified. An
 * {@link ExpressionTooLargeError} names the field it happened in (`headers.X-Sig`, `items.2`).
 *
 * @example
 * renderValue({ url: 'https://x/{{ trigger.id }}', body: '{{ trigger }}' }, scope, options)
 * // { url: 'https://x/42', body: { id: 42 } }
 */
export function renderValue(value: unknown, scope: ExpressionScope, options: RenderOptions): unknown {
  return renderAt(value, scope, options, '');
}

function renderAt(value: unknown, scope: ExpressionScope, options: RenderOptions, field: string): unknown {
  const inner = (key: string | number) => (field === '' ? String(key) : `${field}.${key}`);
  if (typeof value === 'string') {
    try {
      return renderTemplate(value, scope, options);
    } catch (error) {
      if (error instanceof ExpressionTooLargeError && field !== '') throw error.inField(field);
      throw error;
    }
  }
  if (Array.isArray(value)) return value.map((item, index) => renderAt(item, scope, options, inner(index)));
  if (isPlainObject(value)) {
    // fromEntries defines own properties, so a config key named "__proto__" stays a plain key
    // instead of replacing the new object's prototype.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderAt(item, scope, options, inner(key))]),
    );
  }
  return value;
}
