/**
 * A tool trigger's input schema as the editor's small form sees it: one row per top-level property
 * (name, type, required, description). Writing rows back keeps whatever else each property and the
 * schema carried (a pattern, an enum, `additionalProperties`), so a schema written by hand survives
 * being edited in the form.
 */
export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface ToolField {
  name: string;
  type: FieldType;
  required: boolean;
  description: string;
  /**
   * The property this row was read from (absent for a new row): its other keywords follow the row
   * through renames and removals of other rows, never its position.
   */
  source?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function propertiesOf(schema: Json): [string, Json][] {
  return Object.entries(isObject(schema.properties) ? schema.properties : {}).map(([name, p]) => [
    name,
    isObject(p) ? p : {},
  ]);
}

/** The type a row shows for a property: its own when the form has it, else `string`. */
const shownType = (p: Json): FieldType =>
  (FIELD_TYPES as readonly string[]).includes(String(p.type)) ? (p.type as FieldType) : 'string';

export function fieldsOf(schema: Json): ToolField[] {
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return propertiesOf(schema).map(([name, p]) => ({
    name,
    type: shownType(p),
    required: required.has(name),
    description: typeof p.description === 'string' ? p.description : '',
    source: name,
  }));
}

/**
 * `schema` with its properties and `required` from `fields`. Each row keeps the other keywords of
 * the property it was read from (`source`); its `type` is written only when the row's type differs
 * from what the form showed, so a type the form cannot show (`["string", "null"]`, none) survives.
 */
export function schemaWithFields(schema: Json, fields: ToolField[]): Json {
  const previous = new Map(propertiesOf(schema));
  const properties = Object.fromEntries(
    fields.map((field) => {
      const original = field.source === undefined ? undefined : previous.get(field.source);
      const { description: _, ...kept } = original ?? {};
      const property: Json =
        original !== undefined && shownType(original) === field.type ? kept : { ...kept, type: field.type };
      if (field.description.trim() !== '') property.description = field.description.trim();
      return [field.name, property];
    }),
  );
  const required = fields.filter((f) => f.required).map((f) => f.name);
  const { required: _, properties: __, ...rest } = schema;
  return { ...rest, type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** A plausible value of a property: its example, default or first allowed value, else one of its type. */
function exampleOf(property: Json): unknown {
  if (Array.isArray(property.examples) && property.examples.length > 0) return property.examples[0];
  if ('default' in property) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  switch (property.type) {
    case 'number':
      return 1.5;
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'text';
  }
}

/** The JSON-RPC request an MCP client sends to call the tool, with example arguments. */
export function toolCallPreview(name: string, schema: Json) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: name || 'tool_name',
      arguments: Object.fromEntries(propertiesOf(schema).map(([key, p]) => [key, exampleOf(p)])),
    },
  };
}
