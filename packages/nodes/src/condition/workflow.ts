import type { z } from 'zod';
import { defineWorkflowNode } from '../workflow-node';
import type { ConditionOperator } from './schema';

type Operator = z.infer<typeof ConditionOperator>;

/** A condition config after interpolation: its operands may be any value, not only text. */
export interface RenderedConditionConfig {
  conditions: { left: unknown; operator: Operator; right?: unknown }[];
  combine: 'and' | 'or';
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/** Numbers compare as numbers when both sides read as numbers ("10" > "9"), otherwise as text. */
function compare(left: unknown, right: unknown): number {
  const a = Number(left);
  const b = Number(right);
  if (
    left !== '' &&
    right !== '' &&
    left !== null &&
    right !== null &&
    !Number.isNaN(a) &&
    !Number.isNaN(b)
  ) {
    return a - b;
  }
  return String(left ?? '').localeCompare(String(right ?? ''));
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function evaluateCondition(left: unknown, operator: Operator, right: unknown): boolean {
  switch (operator) {
    case 'equals':
      return compare(left, right) === 0 && (typeof left === 'object' ? text(left) === text(right) : true);
    case 'not_equals':
      return !evaluateCondition(left, 'equals', right);
    case 'contains':
      return Array.isArray(left)
        ? left.some((item) => text(item) === text(right))
        : text(left).includes(text(right));
    case 'not_contains':
      return !evaluateCondition(left, 'contains', right);
    case 'starts_with':
      return text(left).startsWith(text(right));
    case 'ends_with':
      return text(left).endsWith(text(right));
    case 'gt':
      return compare(left, right) > 0;
    case 'gte':
      return compare(left, right) >= 0;
    case 'lt':
      return compare(left, right) < 0;
    case 'lte':
      return compare(left, right) <= 0;
    case 'is_empty':
      return isEmpty(left);
    case 'is_not_empty':
      return !isEmpty(left);
    case 'exists':
      return left !== null && left !== undefined;
    case 'not_exists':
      return left === null || left === undefined;
  }
}

/** Evaluates a condition node whose config was already interpolated; picks the `true` or `false` output. */
export function evaluateConditionNode(config: RenderedConditionConfig): {
  output: { result: boolean };
  handle: string;
} {
  const results = config.conditions.map((c) => evaluateCondition(c.left, c.operator, c.right));
  const result = config.combine === 'or' ? results.some(Boolean) : results.every(Boolean);
  return { output: { result }, handle: result ? 'true' : 'false' };
}

/** action.condition runs in workflow code: a pure evaluation of its rendered config. */
export const conditionWorkflow = defineWorkflowNode({
  type: 'action.condition',
  runsIn: 'workflow',
  handleOf: (output) => (typeof output.result === 'boolean' ? String(output.result) : 'true'),
  disabledHandle: 'true',
  evaluate: (config) => evaluateConditionNode(config as unknown as RenderedConditionConfig),
});
