import type { z } from 'zod';

export type NodeCategory = 'action' | 'logic' | 'flow' | 'messaging' | 'ai' | 'data';

/** A node type as data: metadata, config and output schemas, and its ports. Pure: safe in workflow code. */
export interface NodeTypeDefinition<C extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  type: string;
  name: string;
  category: NodeCategory;
  description: string;
  config: C;
  output: O;
  /** Output handles. `cases` means one handle per switch case key plus `default`. */
  outputs: readonly string[] | 'cases';
  /** Whether the node runs as an activity (side effects) or in workflow code. */
  runsIn: 'workflow' | 'activity';
}

export function defineNodeType<C extends z.ZodType, O extends z.ZodType>(
  definition: NodeTypeDefinition<C, O>,
): NodeTypeDefinition<C, O> {
  return definition;
}

/** The single output handle of ordinary nodes. */
export const MAIN_OUTPUT = ['main'] as const;
