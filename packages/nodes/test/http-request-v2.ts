import { defineNodeType, type NodeTypeDefinition } from '../src/define';
import { HttpRequestConfig, httpRequest } from '../src/http-request/schema';
import type { NodeRunner } from '../src/runner';

/**
 * A test-only version 2 of action.http_request with an incompatible config: `endpoint` instead of
 * `url`, and POST by default. Its runner maps the config onto version 1's runner. Tests add it with
 * `addNodeTypeVersionForTests` to show that nodes saved as version 1 keep validating and running
 * as version 1.
 */
export const HttpRequestV2Config = HttpRequestConfig.omit({ url: true, method: true }).extend({
  endpoint: HttpRequestConfig.shape.url,
  method: HttpRequestConfig.shape.method.unwrap().default('POST'),
});

export const httpRequestV2: NodeTypeDefinition = defineNodeType({
  ...httpRequest,
  version: 2,
  config: HttpRequestV2Config,
  async runner(): Promise<NodeRunner> {
    const v1 = await httpRequest.runner?.();
    if (!v1) throw new Error('action.http_request v1 has no runner');
    return {
      run(config, ctx) {
        const { endpoint, ...rest } = HttpRequestV2Config.parse(config);
        return v1.run({ ...rest, url: endpoint }, ctx);
      },
    };
  },
});
