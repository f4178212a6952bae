import { refuseSecretHeaders } from '@weft/graph';
import { z } from 'zod';
import { HeaderName, HeaderValue, Template } from '../common';
import { defineNodeType, MAIN_OUTPUT } from '../define';
import { HTTP_DEFAULT_TIMEOUT_MS } from './timeouts';
import { httpRequestWorkflow } from './workflow';

export const HttpRequestConfig = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']).default('GET'),
  url: Template.min(1).max(8192),
  headers: z.record(HeaderName, HeaderValue).superRefine(refuseSecretHeaders).optional(),
  /** A credential of type http_bearer, http_header or http_basic: added to the request at run time only. */
  credential_id: z.uuid().optional(),
  query: z.record(z.string(), Template).optional(),
  body: z.unknown().optional(),
  timeout_ms: z.number().int().min(100).max(300_000).default(HTTP_DEFAULT_TIMEOUT_MS),
  /** A non-2xx answer fails the step unless this is false. */
  fail_on_status: z.boolean().default(true),
  /** Sends the step's stable key as `Idempotency-Key` so a retried call is not applied twice. */
  send_idempotency_key: z.boolean().default(true),
});

export const httpRequest = defineNodeType({
  type: 'action.http_request',
  name: 'HTTP Request',
  category: 'action',
  description: 'Calls an external HTTP API through the SSRF-guarded client.',
  icon: 'globe',
  config: HttpRequestConfig,
  output: z.object({
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
  outputs: MAIN_OUTPUT,
  workflow: httpRequestWorkflow,
  runner: async () => (await import('./run')).httpRequestRunner,
});
