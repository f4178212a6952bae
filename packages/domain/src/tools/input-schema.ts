import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * JSON Schema 2020-12 (MCP's default dialect since 2025-11-25), by ajv, the validator the MCP SDK
 * itself uses. Not strict: a schema written for another tool may carry keywords ajv does not know
 * (`x-…`, `examples` in odd places); they are annotations, not errors.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

/** The one dialect accepted in `$schema` (left out means it too). */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Compiled validators by schema text: a tool's schema changes rarely and is called often. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 500;

function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, validate);
  }
  return validate;
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
  const validate = compile(schema);
  return validate(args) ? [] : (validate.errors ?? []).map(describe);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : `${error.instancePath.slice(1).replaceAll('/', '.')} `;
  return `${where}${error.message ?? 'is invalid'}`.trim();
}
