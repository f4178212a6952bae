import { EXECUTION_FIELDS, LOOP_FIELDS, PIPE_USAGE, renderTemplate, traceTemplate } from '@weft/graph/editor';

/**
 * Autocomplete for `{{ … }}` fields: where the caret is (a path or a pipe inside an open
 * expression), what may come next there, and the text after choosing a suggestion. Pure.
 */
export interface Suggestion {
  label: string;
  /** Replaces the word being typed. */
  insert: string;
  detail: string;
}

export interface ExpressionContext {
  /** Upstream nodes, nearest first, with the field names known for each (last run or output schema). */
  upstream: { id: string; name: string; fields: string[] }[];
  /** Field names of the trigger data (sample payload or last run). */
  triggerFields: string[];
  insideLoop: boolean;
  /**
   * The data the step would see (the last run's outputs, pins, the trigger data): autocomplete
   * walks it to any depth, and the field previews its expressions on it as they are typed.
   */
  data?: { trigger: unknown; nodes: Record<string, unknown>; loop?: unknown };
}

/** The value at `path` (dot segments, numbers index arrays) in `root`, or undefined. */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** What may follow a value in a path: an object's keys, or an array's first index. */
function keysOf(value: unknown): { name: string; detail: string }[] {
  if (Array.isArray(value))
    return value.length ? [{ name: '0', detail: `first of ${value.length} items` }] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).map(([name, item]) => ({
    name,
    detail: Array.isArray(item) ? `list of ${item.length}` : item === null ? 'null' : typeof item,
  }));
}

interface CaretSpot {
  kind: 'path' | 'pipe';
  /** The word typed so far (`nodes.fet`, `up`). */
  word: string;
  /** Where that word starts in the text. */
  from: number;
}

/** Inside an unclosed `{{` before the caret: the path or pipe name being typed. */
export function caretSpot(text: string, caret: number): CaretSpot | null {
  const before = text.slice(0, caret);
  const open = before.lastIndexOf('{{');
  if (open === -1 || before.lastIndexOf('}}') > open) return null;
  const inside = before.slice(open + 2);
  const bar = inside.lastIndexOf('|');
  if (bar !== -1) {
    const tail = inside.slice(bar + 1);
    if (tail.includes(':')) return null; // typing an argument: nothing to offer
    const word = tail.trimStart();
    return { kind: 'pipe', word, from: caret - word.length };
  }
  const word = inside.trimStart();
  if (/\s/.test(word)) return null;
  return { kind: 'path', word, from: caret - word.length };
}

const matches = (label: string, word: string) => label.toLowerCase().startsWith(word.toLowerCase());

export function suggest(text: string, caret: number, context: ExpressionContext): Suggestion[] {
  const spot = caretSpot(text, caret);
  if (!spot) return [];
  if (spot.kind === 'pipe') {
    return Object.entries(PIPE_USAGE)
      .filter(([name]) => matches(name, spot.word))
      .map(([name, { usage, description }]) => ({
        label: usage,
        insert: usage.includes(':') ? `${name}:` : name,
        detail: description,
      }));
  }
  const segments = spot.word.split('.');
  const [root, second] = segments;
  const all: Suggestion[] = [];
  if (segments.length === 1) {
    all.push({ label: 'trigger', insert: 'trigger.', detail: 'the data that started the run' });
    if (context.upstream.length)
      all.push({ label: 'nodes', insert: 'nodes.', detail: 'outputs of earlier steps' });
    if (context.insideLoop)
      all.push({ label: 'loop', insert: 'loop.', detail: 'the current item of the loop' });
    all.push({ label: 'execution', insert: 'execution.', detail: 'this run: id, workflow_id, started_at' });
    return all.filter((s) => matches(s.label, spot.word));
  }
  const prefix = segments.slice(0, -1).join('.');
  const last = segments.at(-1) ?? '';
  const fieldsAt = (): { name: string; detail: string }[] => {
    if (root === 'trigger' && segments.length === 2)
      return context.triggerFields.map((f) => ({ name: f, detail: 'trigger field' }));
    if (root === 'execution' && segments.length === 2)
      return EXECUTION_FIELDS.map((f) => ({ name: f, detail: 'execution field' }));
    if (root === 'loop' && segments.length === 2 && context.insideLoop)
      return LOOP_FIELDS.map((f) => ({ name: f, detail: 'loop field' }));
    if (root === 'nodes' && segments.length === 2)
      return context.upstream.map((n) => ({ name: n.id, detail: n.name }));
    if (root === 'nodes' && segments.length === 3) {
      const node = context.upstream.find((n) => n.id === second);
      return (node?.fields ?? []).map((f) => ({ name: f, detail: `output of ${node?.name}` }));
    }
    // Deeper: the fields of the data the step would see, to any depth.
    const data = context.data;
    if (!data) return [];
    const inner = segments.slice(1, -1);
    if (root === 'trigger') return keysOf(valueAt(data.trigger, inner));
    if (root === 'loop' && context.insideLoop) return keysOf(valueAt(data.loop, inner));
    if (root === 'nodes' && context.upstream.some((n) => n.id === second))
      return keysOf(valueAt(data.nodes, inner));
    return [];
  };
  // A node is rarely wanted whole: taking one continues into its fields.
  const more = root === 'nodes' && segments.length === 2 ? '.' : '';
  return fieldsAt()
    .filter((f) => matches(f.name, last))
    .map((f) => ({ label: `${prefix}.${f.name}`, insert: `${prefix}.${f.name}${more}`, detail: f.detail }));
}

/** The text after choosing `suggestion` at `caret`, and where the caret goes; closes the braces. */
export function applySuggestion(text: string, caret: number, suggestion: Suggestion) {
  const spot = caretSpot(text, caret);
  if (!spot) return { text, caret };
  let after = text.slice(caret);
  let insert = suggestion.insert;
  const done = !insert.endsWith('.') && !insert.endsWith(':');
  if (done && !/^\s*(\||}})/.test(after)) insert += ' }}';
  else if (done && /^}}/.test(after)) after = ` ${after}`;
  const next = text.slice(0, spot.from) + insert + after;
  return { text: next, caret: spot.from + insert.length };
}

/** Splits a text into plain parts and `{{ … }}` parts, for highlighting. */
export function expressionParts(text: string): { text: string; expression: boolean }[] {
  const parts: { text: string; expression: boolean }[] = [];
  const pattern = /\{\{[\s\S]*?(\}\}|$)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), expression: false });
    parts.push({ text: match[0], expression: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), expression: false });
  return parts;
}

/** Field names of an output JSON Schema (`properties`), or of a sample value (an object's keys). */
export function fieldNames(schemaOrValue: unknown, isSchema: boolean): string[] {
  if (!schemaOrValue || typeof schemaOrValue !== 'object' || Array.isArray(schemaOrValue)) return [];
  if (isSchema) return Object.keys(((schemaOrValue as { properties?: object }).properties ?? {}) as object);
  return Object.keys(schemaOrValue);
}

/** A short text of a value for a preview line (JSON for objects, cut at `max` characters). */
export function shortText(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A field's value on the data the step would see, as the engine would render it (the same
 * @weft/graph code), and each expression stage by stage. `execution.*` reads stand-in values: the
 * run does not exist yet.
 */
export function previewExpression(text: string, data: NonNullable<ExpressionContext['data']>) {
  const scope = {
    trigger: data.trigger,
    nodes: data.nodes,
    ...(data.loop === undefined
      ? {}
      : { loop: data.loop as { item: unknown; index: number; count: number } }),
    execution: { id: '(this run)', workflow_id: '(this workflow)', started_at: new Date().toISOString() },
  };
  const options = { now: new Date(), timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
  let value: unknown;
  let error: string | undefined;
  try {
    value = renderTemplate(text, scope, options);
  } catch (failure) {
    error = (failure as Error).message;
  }
  return { value, error, traces: traceTemplate(text, scope, options) };
}
