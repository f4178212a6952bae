import { BoundedCache } from './bounded-cache';
import { maxPipeArgs } from './pipes';

/**
 * Templates and their expressions. Grammar of what stands between `{{` and `}}`:
 *
 * ```
 * expression := root segment* ( "|" pipe )*
 * segment    := "." name | "[" digits "]" | "[" quoted "]"
 * pipe       := pipe-name ( ":" argument )*
 * argument   := quoted | text up to the next "|" or "}}" (trimmed)
 * ```
 *
 * Names are letters, digits, `_`, `$` and `-` (node ids may contain `-`). A pipe's last argument
 * runs to the next `|`, colons included (`date:H:i:s`); quote an argument ('…' or "…", with `\'`,
 * `\"` and `\\` escapes) to keep its spaces or to put `|` or `}}` in it. `\{{` in a template is a
 * literal `{{`.
 */

export type PathSegment = string | number;

export interface PipeCall {
  name: string;
  args: string[];
}

/** An expression that parsed. `source` is the whole `{{ … }}` text as written. */
export interface ParsedExpression {
  source: string;
  root: string;
  path: PathSegment[];
  pipes: PipeCall[];
}

/** An expression that did not parse; it renders as null and fails the save-time check. */
export interface MalformedExpression {
  source: string;
  error: string;
}

export type FoundExpression = ParsedExpression | MalformedExpression;

export type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'expression'; expression: FoundExpression };

export interface CompiledTemplate {
  parts: readonly TemplatePart[];
  /** Every expression, also an unclosed `{{` (which renders as literal text). */
  expressions: readonly FoundExpression[];
  /** The template is exactly one `{{ … }}`, so rendering keeps the resolved value's type. */
  single: boolean;
}

/** Whether the expression parsed. */
export function isParsedExpression(expression: FoundExpression): expression is ParsedExpression {
  return !('error' in expression);
}

class ParseFailure extends Error {}

const NAME = /[\p{L}\p{N}_$-]+/uy;
const PIPE_NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Reads one expression from just after its `{{` to just after its `}}`. */
class ExpressionReader {
  private pos: number;

  constructor(
    private readonly text: string,
    start: number,
  ) {
    this.pos = start;
  }

  /** Parses the expression; returns it with the position after `}}`, or throws ParseFailure. */
  read(): { root: string; path: PathSegment[]; pipes: PipeCall[]; end: number } {
    this.skipSpaces();
    const root = this.match(NAME);
    if (root === undefined) this.fail('expected a root: trigger, nodes, loop or execution');
    const path = this.readPath();
    this.skipSpaces();
    const pipes: PipeCall[] = [];
    while (this.peek() === '|') {
      this.pos++;
      this.skipSpaces();
      const name = this.match(PIPE_NAME);
      if (name === undefined) this.fail('expected a pipe name after "|"');
      this.skipSpaces();
      let args: string[] = [];
      if (this.peek() === ':') {
        this.pos++;
        args = this.readArgs(maxPipeArgs(name));
      }
      pipes.push({ name, args });
      this.skipSpaces();
    }
    if (!this.text.startsWith('}}', this.pos)) {
      this.fail(this.pos >= this.text.length ? 'missing }}' : `unexpected "${this.peek()}"`);
    }
    return { root, path, pipes, end: this.pos + 2 };
  }

  private readPath(): PathSegment[] {
    const path: PathSegment[] = [];
    for (;;) {
      const char = this.peek();
      if (char === '.') {
        this.pos++;
        const name = this.match(NAME);
        if (name === undefined) this.fail('expected a field name after "."');
        path.push(name);
      } else if (char === '[') {
        this.pos++;
        this.skipSpaces();
        const digits = this.match(/\d+/y);
        if (digits !== undefined) {
          const index = Number(digits);
          if (!Number.isSafeInteger(index)) this.fail(`index [${digits}] is too large`);
          path.push(index);
        } else if (this.peek() === "'" || this.peek() === '"') {
          path.push(this.readQuoted());
        } else {
          this.fail('expected an index like [0] or a quoted key like ["name"] after "["');
        }
        this.skipSpaces();
        if (this.peek() !== ']') this.fail('expected "]"');
        this.pos++;
      } else {
        return path;
      }
    }
  }

  /** Arguments after `pipe:`. The last one the pipe takes runs to the next `|` or `}}`, colons included. */
  private readArgs(maxArgs: number): string[] {
    const args: string[] = [];
    for (;;) {
      const isLast = args.length + 1 >= maxArgs;
      this.skipSpaces();
      let value: string;
      if (this.peek() === "'" || this.peek() === '"') {
        value = this.readQuoted();
        this.skipSpaces();
      } else {
        const start = this.pos;
        while (
          this.pos < this.text.length &&
          this.peek() !== '|' &&
          !this.text.startsWith('}}', this.pos) &&
          (isLast || this.peek() !== ':')
        ) {
          this.pos++;
        }
        value = this.text.slice(start, this.pos).trim();
      }
      args.push(value);
      if (isLast || this.peek() !== ':') return args;
      this.pos++;
    }
  }

  private readQuoted(): string {
    const quote = this.peek();
    this.pos++;
    let value = '';
    for (;;) {
      const char = this.peek();
      if (char === undefined) this.fail(`unterminated quoted text: add the closing ${quote}`);
      if (char === quote) {
        this.pos++;
        return value;
      }
      const next = this.text[this.pos + 1];
      if (char === '\\' && (next === "'" || next === '"' || next === '\\')) {
        value += next;
        this.pos += 2;
      } else {
        value += char;
        this.pos++;
      }
    }
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.text);
    if (!found) return undefined;
    this.pos += found[0].length;
    return found[0];
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private skipSpaces(): void {
    while (/\s/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  private fail(message: string): never {
    throw new ParseFailure(message);
  }
}

/**
 * Reads the expression whose `{{` is at `open`. A malformed expression ends at the next `}}`;
 * returns undefined when no `}}` follows at all.
 */
function readExpression(
  template: string,
  open: number,
): { expression: FoundExpression; end: number } | undefined {
  try {
    const { root, path, pipes, end } = new ExpressionReader(template, open + 2).read();
    return { expression: { source: template.slice(open, end), root, path, pipes }, end };
  } catch (failure) {
    if (!(failure instanceof ParseFailure)) throw failure;
    const close = template.indexOf('}}', open + 2);
    if (close === -1) return undefined;
    return {
      expression: { source: template.slice(open, close + 2), error: failure.message },
      end: close + 2,
    };
  }
}

function compileUncached(template: string): CompiledTemplate {
  const parts: TemplatePart[] = [];
  const expressions: FoundExpression[] = [];
  let text = '';
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{{', pos);
    if (open === -1) {
      text += template.slice(pos);
      break;
    }
    if (open > 0 && template[open - 1] === '\\') {
      text += `${template.slice(pos, open - 1)}{{`;
      pos = open + 2;
      continue;
    }
    text += template.slice(pos, open);
    const found = readExpression(template, open);
    if (found === undefined) {
      expressions.push({
        source: template.slice(open),
        error: 'unclosed {{: add }} or write \\{{ for literal braces',
      });
      text += template.slice(open);
      break;
    }
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
    parts.push({ kind: 'expression', expression: found.expression });
    expressions.push(found.expression);
    pos = found.end;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  const single = parts.length === 1 && parts[0]?.kind === 'expression';
  return { parts, expressions, single };
}

/** Templates seen by this process; bounded so endless distinct templates cannot exhaust memory. */
const TEMPLATE_CACHE_SIZE = 1_000;
/** Longer templates (whole e-mail bodies) are compiled each time: linear work, and no large cache entries. */
const MAX_CACHED_TEMPLATE_LENGTH = 16_384;
const compiled = new BoundedCache<string, CompiledTemplate>(TEMPLATE_CACHE_SIZE);

/**
 * Splits a template into literal text and parsed expressions, once per distinct template.
 * Never throws: a malformed expression becomes a {@link MalformedExpression} part.
 *
 * @example compileTemplate('Hi {{ trigger.name | upper }}').parts
 * // [{ kind: 'text', text: 'Hi ' }, { kind: 'expression', expression: { root: 'trigger', path: ['name'], … } }]
 */
export function compileTemplate(template: string): CompiledTemplate {
  const cached = compiled.get(template);
  if (cached) return cached;
  const result = compileUncached(template);
  if (template.length <= MAX_CACHED_TEMPLATE_LENGTH) compiled.set(template, result);
  return result;
}
