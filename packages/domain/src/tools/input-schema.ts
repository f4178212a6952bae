import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * JSON Schema 2020-12 (MCP's default dialect since 2025-11-25), by ajv, the validator the MCP SDK
 * itself uses. Not strict: a schema written for another tool may carry keywords ajv does not know
 * (`x-…`, `examples` in odd places); they are annotations, not errors.
 */
/**
 * `addUsedSchema: false`: one instance serves every organization, so a schema's `$id` must not be
 * registered (two organizations' schemas with one `$id` would collide, an edit keeping its `$id`
 * would be refused until restart, and a `$ref` could reach another organization's schema).
 */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, addUsedSchema: false });

/** The one dialect accepted in `$schema` (left out means it too). */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Compiled validators by schema text: a tool's schema changes rarely and is called often. */
const compiled = new Map<string, { schema: Record<string, unknown>; validate: ValidateFunction }>();
const MAX_COMPILED = 500;

function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) return hit.validate;
  const validate = ajv.compile(schema);
  if (compiled.size >= MAX_COMPILED) {
    const [oldestKey, oldest] = compiled.entries().next().value as [
      string,
      { schema: Record<string, unknown> },
    ];
    compiled.delete(oldestKey);
    // ajv keeps its own cache keyed by the schema object: drop it too, or memory only grows.
    ajv.removeSchema(oldest.schema);
  }
  compiled.set(key, { schema, validate });
  return validate;
}

/** How many validators are cached (for tests of the bound). */
export function compiledCount(): number {
  return compiled.size;
}

/** What is wrong with `schema` as a JSON Schema (empty when it is one ajv can compile). */
export function inputSchemaProblems(schema: Record<string, unknown>): string[] {
  const dialect = schema.$schema;
  if (dialect !== undefined && dialect !== DIALECT && dialect !== `${DIALECT}#`) {
    // ajv throws on a meta-schema it does not know (draft-07, a number): a problem, not a crash.
    return [`"$schema" must be ${DIALECT} (JSON Schema 2020-12) or left out`];
  }
  try {
    if (!ajv.validateSchema(schema)) return (ajv.errors ?? []).map(describe);
    compile(schema);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/** `arguments` checked against a tool's input schema: the problems in words, empty when valid. */
export function argumentProblems(schema: Record<string, unknown>, args: unknown): string[] {
  let validate: ValidateFunction;
  try {
    validate = compile(schema);
  } catch (error) {
    // A schema saved before a check existed (or one ajv cannot compile): the call is refused as bad
    // input, never a plain Error (an MCP internal error, a retried activity).
    return [
      `the tool's input schema cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  return validate(args) ? [] : (validate.errors ?? []).map(describe);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : `${error.instancePath.slice(1).replaceAll('/', '.')} `;
  return `${where}${error.message ?? 'is invalid'}`.trim();
}
