/**
 * The input pane's rows: every field of an upstream output (or of the trigger data), each with the
 * expression that reads it, written in the grammar of @weft/graph's interpolation (`.name`,
 * `[0]`, `["odd key"]`). Pure.
 */
export interface FieldRow {
  /** The path as shown, relative to the output (`body.items[0].sku`). */
  label: string;
  /** What dragging or inserting the row puts in a parameter: `{{ nodes.fetch.body.items[0].sku }}`. */
  expression: string;
  depth: number;
  /** A short rendering of the value (objects and lists say how many entries they have). */
  preview: string;
}

const NAME = /^[\p{L}\p{N}_$-]+$/u;
const segment = (key: string | number) =>
  typeof key === 'number' ? `[${key}]` : NAME.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;

function preview(value: unknown): string {
  if (Array.isArray(value)) return `list · ${value.length}`;
  if (value !== null && typeof value === 'object') return `object · ${Object.keys(value).length}`;
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** `root` is `nodes.<id>` or `trigger`; lists show their first items only, and at most `limit` rows. */
export function fieldRows(root: string, value: unknown, maxDepth = 5, limit = 200): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (current: unknown, path: string, depth: number) => {
    if (depth > maxDepth || current === null || typeof current !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(current)
      ? current.slice(0, 3).map((v, i) => [i, v])
      : Object.entries(current);
    for (const [key, child] of entries) {
      if (rows.length >= limit) return;
      const childPath = path + segment(key);
      rows.push({
        label: childPath.replace(/^\./, ''),
        expression: `{{ ${root}${childPath} }}`,
        depth,
        preview: preview(child),
      });
      walk(child, childPath, depth + 1);
    }
  };
  walk(value, '', 0);
  return rows;
}
