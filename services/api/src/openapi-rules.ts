import { HTTP_URL_PATTERN } from '@weft/domain';
import { addTriggerConfigBranches, triggerConfigSchema } from './openapi-trigger-configs';

type Json = Record<string, unknown>;

/**
 * Rules a route's zod schema holds in refinements (invisible to the document generator), written
 * into the request-body schemas by operationId. Patching the generated document rather than the
 * shared zod schemas: `.openapi()` exists only on schemas created after @hono/zod-openapi loaded,
 * which the service layer's schemas are not.
 */
const BODY_RULES: Record<string, (body: Json) => void> = {
  createWorkflow: addTriggerConfigBranches,
  updateWorkflow: addTriggerConfigBranches,
  // A preview takes the polling trigger's config.
  previewPollingTrigger: (body) => {
    const properties = body.properties as Json;
    properties.trigger_config = {
      ...triggerConfigSchema('polling'),
      description: 'The polling trigger_config as a workflow would save it',
    };
  },
  // The URL passes WHATWG parsing and the SSRF guard: the http(s) form those accept.
  createWebhook: (body) => withUrlPattern(body),
  updateWebhook: (body) => withUrlPattern(body),
  // SecondFactorInput's .refine: exactly one of the two codes, not blank once trimmed.
  loginTwoFactor: (body) => {
    const properties = body.properties as Record<string, Json>;
    for (const field of ['code', 'recovery_code']) {
      if (properties[field]) properties[field].pattern = NON_BLANK_TEXT_PATTERN;
    }
    body.oneOf = [
      { required: ['code'], not: { required: ['recovery_code'] } },
      { required: ['recovery_code'], not: { required: ['code'] } },
    ];
  },
};

/** Text with something besides white space (and no NUL): what survives the server's trim. */
const NON_BLANK_TEXT_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

function withUrlPattern(body: Json): void {
  const url = (body.properties as Record<string, Json>).url;
  if (url) url.pattern = HTTP_URL_PATTERN;
}

/** Applies BODY_RULES to the operation's JSON request body, in place. */
export function applyBodyRules(operationId: unknown, body: Json): void {
  if (typeof operationId === 'string') BODY_RULES[operationId]?.(body);
}
