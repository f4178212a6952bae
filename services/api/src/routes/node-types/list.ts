import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { describeNodeType, NODE_ICONS, NODE_TYPES } from '@weft/nodes';
import type { AppEnv } from '../../app-env';
import { errorResponses, jsonContent, security } from '../../openapi-schemas';

const NodeTypeDescription = z
  .object({
    type: z.string(),
    name: z.string(),
    category: z.string(),
    description: z.string(),
    /** The editor's icon for the type's steps. */
    icon: z.enum(NODE_ICONS),
    /**
     * Whether a replay reuses a step's recorded output instead of running it (the type reaches
     * outside Weft, or waits); "Debug in editor" pins these steps, so a test run repeats nothing.
     */
    reuses_recording: z.boolean(),
    /** The latest version: what a new node gets (`type_version`); the schemas below are its. */
    version: z.number().int(),
    config_schema: z.unknown(),
    output_schema: z.unknown(),
    ports: z.unknown(),
    /** Older versions saved nodes may still name, oldest first, each with its own schemas and ports. */
    previous_versions: z.array(
      z.object({
        version: z.number().int(),
        config_schema: z.unknown(),
        output_schema: z.unknown(),
        ports: z.unknown(),
      }),
    ),
  })
  .openapi('NodeType');

// Computed once: the node types are fixed for the life of the process.
const described = NODE_TYPES.map(describeNodeType);

const route = createRoute({
  method: 'get',
  operationId: 'listNodeTypes',
  path: '/node-types',
  tags: ['Node types'],
  summary: 'The node types with JSON Schemas of their config and output, their ports and versions',
  security,
  responses: {
    200: jsonContent(z.object({ data: z.array(NodeTypeDescription) }), 'Node types'),
    ...errorResponses(),
  },
});

export function registerListNodeTypes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, (c) => c.json({ data: described }, 200));
}
