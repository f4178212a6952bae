import type { PathSegment } from './parse';
import type { ExpressionScope } from './scope';
import { normalizeResolved } from './values';

/**
 * Names that lead from data into the object model. They are never followed, whatever the data,
 * so no expression can read or reach `Object.prototype` or a constructor.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

function rootValue(scope: ExpressionScope, root: string): unknown {
  // A switch, not scope[root]: only these names are roots, whatever else the scope object holds.
  switch (root) {
    case 'trigger':
      return scope.trigger;
    case 'nodes':
      return scope.nodes;
    case 'loop':
      return scope.loop;
    case 'execution':
      return scope.execution;
    case 'credentials':
      return scope.credentials ?? null;
    default:
      return null;
  }
}

/** One step down: an own property of an object or array (or a string's index or `length`), else null. */
function child(parent: unknown, segment: PathSegment): unknown {
  if (parent === null || parent === undefined) return null;
  if (typeof parent !== 'object' && typeof parent !== 'string') return null;
  const key = String(segment);
  if (FORBIDDEN_KEYS.has(key)) return null;
  try {
    // Object.hasOwn, not `in`: inherited members (toString, __defineGetter__, …) are not data.
    // A string is boxed by Object.hasOwn, which gives it own indexes and `length`.
    const container = parent as Record<string, unknown>;
    return Object.hasOwn(container, key) ? container[key] : null;
  } catch {
    // A Proxy trap or a throwing getter in the data: treat as missing rather than fail the step.
    return null;
  }
}

/**
 * The value at `root` followed by `path` in the scope; null when any step is missing, when the root
 * is unknown, or when the path names `__proto__`, `prototype` or `constructor`. Never throws.
 *
 * @example resolvePath({ trigger: { items: [{ sku: 'A1' }] }, … }, 'trigger', ['items', 0, 'sku']) === 'A1'
 */
export function resolvePath(scope: ExpressionScope, root: string, path: readonly PathSegment[]): unknown {
  let current = rootValue(scope, root);
  for (const segment of path) {
    current = child(current, segment);
    if (current === null || current === undefined) return null;
  }
  return normalizeResolved(current);
}
