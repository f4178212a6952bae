import type { ExpressionContext } from './expressions';

/** The part of JSON Schema the node-type catalog uses (zod's toJSONSchema output). */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: unknown;
}

/** What every field of a node's form can reach: errors and previews by path, pickers' choices. */
export interface FieldContext {
  expression: ExpressionContext;
  errors(path: string): string[] | undefined;
  preview(path: string): string | undefined;
  credentials: { id: string; name: string; type: string }[];
  workflows: { id: string; name: string }[];
  /** Adds a credential created in place to the pickers' choices (absent: no "New credential"). */
  addCredential?: (credential: { id: string; name: string; type: string }) => void;
}

/** The credential types an HTTP node or a polling trigger authenticates with. */
export const HTTP_CREDENTIAL_TYPES = ['http_bearer', 'http_header', 'http_basic'] as const;

export type FieldKind =
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  | { kind: 'number' }
  | { kind: 'credential' }
  | { kind: 'workflow' }
  | { kind: 'code' }
  | { kind: 'text'; multiline: boolean }
  | { kind: 'list'; item: JsonSchema }
  | { kind: 'object'; properties: Record<string, JsonSchema> }
  | { kind: 'json' };

const MULTILINE = new Set(['body', 'message', 'prompt', 'system', 'html', 'text']);

const typeOf = (schema: JsonSchema) => (Array.isArray(schema.type) ? schema.type[0] : schema.type);

/** Which input a config field gets, from its name and schema. */
export function describeSchema(name: string, schema: JsonSchema): FieldKind {
  if (name === 'credential_id') return { kind: 'credential' };
  if (name === 'workflow_id') return { kind: 'workflow' };
  if (name === 'code') return { kind: 'code' };
  if (schema.enum) return { kind: 'enum', options: schema.enum.map(String) };
  const type = typeOf(schema);
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'integer' || type === 'number') return { kind: 'number' };
  if (type === 'string') return { kind: 'text', multiline: MULTILINE.has(name) };
  if (type === 'array' && schema.items && typeOf(schema.items) === 'object' && schema.items.properties) {
    return { kind: 'list', item: schema.items };
  }
  if (
    type === 'object' &&
    schema.properties &&
    Object.keys(schema.properties).length &&
    !schema.additionalProperties
  ) {
    return { kind: 'object', properties: schema.properties };
  }
  // "A recipient or a list of them": typed as text, which takes one address or an expression.
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.some((s) => typeOf(s) === 'string') && name !== 'body')
    return { kind: 'text', multiline: false };
  return { kind: 'json' };
}

/** Words that are written in capitals (or otherwise) in a label. */
const WORDS: Record<string, string> = {
  url: 'URL',
  id: 'ID',
  ids: 'IDs',
  http: 'HTTP',
  json: 'JSON',
  api: 'API',
  ai: 'AI',
  cc: 'CC',
  bcc: 'BCC',
  html: 'HTML',
  ms: '(ms)',
};

/** Fields whose name says what they hold in code, not in words. */
const LABELS: Record<string, string> = {
  credential_id: 'Credential',
  workflow_id: 'Workflow',
};

/** A config field's name as a label: `timeout_ms` → "Timeout (ms)", `url` → "URL". */
export const labelOf = (name: string) =>
  LABELS[name] ??
  name
    .split('_')
    .map((word) => WORDS[word.toLowerCase()] ?? word)
    .join(' ')
    .replace(/^./, (c) => c.toUpperCase());

/** One item of a list field: "Condition 1" for `conditions`, "Case 2" for `cases`. */
export const itemLabelOf = (name: string) => labelOf(name).replace(/(?<=[a-z])s$/, '');

/** Choices that are codes, in words (the value sent stays the code). */
const OPTIONS: Record<string, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  lt: 'is less than',
  lte: 'is less than or equal to',
  is_empty: 'is empty',
  is_not_empty: 'is not empty',
  exists: 'exists',
  not_exists: 'does not exist',
  and: 'all of them (and)',
  or: 'any of them (or)',
  wait_all: 'wait for all inputs',
  sequential: 'one after another',
  parallel: 'all at once',
};

export const optionLabelOf = (option: string) => OPTIONS[option] ?? option;

/** A new list item: each required field present (empty text, first choice, default). */
export function defaultFor(schema: JsonSchema): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (!schema.required?.includes(key)) continue;
    if (property.default !== undefined) item[key] = property.default;
    else if (property.enum) item[key] = property.enum[0];
    else if (typeOf(property) === 'string') item[key] = '';
  }
  return item;
}
