import { z } from 'zod';
import { aiPrompt } from './ai-prompt/schema';
import { chatSend } from './chat-send/schema';
import { chatSendTemplate } from './chat-send-template/schema';
import { code } from './code/schema';
import { condition } from './condition/schema';
import type { NodeTypeDefinition } from './define';
import { delay } from './delay/schema';
import { emailSend } from './email-send/schema';
import { eventPublish } from './event-publish/schema';
import { httpRequest } from './http-request/schema';
import { loop } from './loop/schema';
import { merge } from './merge/schema';
import { switchNode } from './switch/schema';
import { transform } from './transform/schema';
import { waitForEvent } from './wait-for-event/schema';
import { workflowExecute } from './workflow-execute/schema';

/** The 15 node types. Their `type` strings are public API: never rename one. */
export const NODE_TYPES: readonly NodeTypeDefinition[] = [
  httpRequest,
  transform,
  condition,
  switchNode,
  loop,
  merge,
  delay,
  waitForEvent,
  code,
  emailSend,
  chatSend,
  chatSendTemplate,
  aiPrompt,
  eventPublish,
  workflowExecute,
];

const byType = new Map(NODE_TYPES.map((d) => [d.type, d]));

/** Older or shorter spellings accepted on input and stored in canonical form. */
export const NODE_TYPE_ALIASES: Readonly<Record<string, string>> = { email_send: 'action.email.send' };

/**
 * Every `type` a workflow node may name on input (canonical and alias spellings), as a zod enum so
 * the OpenAPI document lists them and API clients and fuzzers can build real workflows. Its error
 * keeps validateNodes' wording for an unknown type.
 */
export const NodeTypeName = z.enum(
  [...NODE_TYPES.map((d) => d.type), ...Object.keys(NODE_TYPE_ALIASES)] as [string, ...string[]],
  { error: (issue) => `unknown node type "${String(issue.input)}"` },
);

export function canonicalNodeType(type: string): string {
  return NODE_TYPE_ALIASES[type] ?? type;
}

export function getNodeType(type: string): NodeTypeDefinition | undefined {
  return byType.get(canonicalNodeType(type));
}

/** The output handles a node of this definition offers, given its (parsed) config. */
export function outputHandles(definition: NodeTypeDefinition, config: unknown): string[] {
  if (definition.outputs !== 'cases') return [...definition.outputs];
  const parsed = definition.config.safeParse(config);
  const cases = parsed.success ? ((parsed.data as { cases: { key: string }[] }).cases ?? []) : [];
  return [...cases.map((c) => c.key), 'default'];
}

/** The description served by GET /node-types, with JSON Schema generated from the zod schemas. */
export function describeNodeType(definition: NodeTypeDefinition) {
  return {
    type: definition.type,
    name: definition.name,
    category: definition.category,
    description: definition.description,
    config_schema: z.toJSONSchema(definition.config, { io: 'input', unrepresentable: 'any' }),
    output_schema: z.toJSONSchema(definition.output, { unrepresentable: 'any' }),
    ports: {
      inputs: ['main'],
      outputs:
        definition.outputs === 'cases'
          ? { from_config: 'cases[].key', plus: ['default'] }
          : definition.outputs,
    },
  };
}
