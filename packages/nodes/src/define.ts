import type { z } from 'zod';
import type { NodeRunner } from './runner';
import type { WorkflowNodeType } from './workflow-node';

/** The categories, in the order the editor's palette lists them. */
export const NODE_CATEGORIES = ['action', 'data', 'logic', 'flow', 'messaging', 'ai'] as const;
export type NodeCategory = (typeof NODE_CATEGORIES)[number];

/** The icons the editor can draw on a step's tile (web/src/lib/canvas/node-look.ts has their paths). */
export const NODE_ICONS = [
  'box',
  'globe',
  'branch',
  'split',
  'repeat',
  'merge',
  'clock',
  'hourglass',
  'play',
  'megaphone',
  'code',
  'wand',
  'mail',
  'chat',
  'sparkles',
  'bot',
  'hand',
  'form',
  'wrench',
] as const;
export type NodeIconName = (typeof NODE_ICONS)[number];

/**
 * A node type (one version of it) as data: metadata, config and output schemas, its ports, what the
 * interpreter knows of it (`workflow`) and, for a type that runs in an activity, its runner. Pure:
 * the runner is loaded only when a node of the type first runs, so the API never loads I/O code.
 */
export interface NodeTypeDefinition<C extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  type: string;
  /** Which version of the type this is (1 when absent); a saved node keeps its version (types.ts). */
  version?: number;
  name: string;
  category: NodeCategory;
  description: string;
  /** The editor's icon for the type's steps (their colour follows the category); `box` when absent. */
  icon?: NodeIconName;
  config: C;
  output: O;
  /** Output handles. `cases` means one handle per switch case key plus `default`. */
  outputs: readonly string[] | 'cases';
  /** The type's `workflow.ts`; absent: it runs in an activity, heartbeating, reading nothing upstream. */
  workflow?: WorkflowNodeType;
  /** The type's `run.ts` runner, for a type that runs in an activity. */
  runner?: () => Promise<NodeRunner>;
  /** The organization module the type needs (a template using it lists that module). */
  module?: 'chat' | 'email' | 'ai';
}

export function defineNodeType<C extends z.ZodType, O extends z.ZodType>(
  definition: NodeTypeDefinition<C, O>,
): NodeTypeDefinition<C, O> {
  return definition;
}

/** Where a node of this definition runs: in workflow code or in an activity (the default). */
export function runsIn(definition: NodeTypeDefinition): 'workflow' | 'activity' {
  return definition.workflow?.runsIn ?? 'activity';
}

/** The version of a definition (1 when it does not say). */
export function versionOf(definition: { version?: number }): number {
  return definition.version ?? 1;
}

/** The single output handle of ordinary nodes. */
export const MAIN_OUTPUT = ['main'] as const;
