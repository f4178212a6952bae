import {
  CanvasNote,
  checkGraphExpressions,
  GraphEdge,
  GraphNode,
  MAX_EDGES,
  MAX_NODES,
  MAX_NOTES,
  normalizeTriggerType,
  TRIGGER_TYPES,
  TriggerConfigByType,
  type TriggerType,
  validateGraphStructure,
} from '@weft/graph';
import { CREDENTIAL_NODE_TYPES, NodeTypeName, validateNodes } from '@weft/nodes';
import { z } from 'zod';
import { humanMessage } from '../errors';
import { storedText } from '../text';
import { inputSchemaProblems } from '../tools/input-schema';

export const WORKFLOW_STATUSES = ['active', 'inactive', 'draft'] as const;
export const WorkflowStatus = z.enum(WORKFLOW_STATUSES);

/** Both spellings the API accepts (`polling` and `trigger.polling`), as an enum the document lists. */
const TriggerTypeInput = z
  .enum([...TRIGGER_TYPES, ...TRIGGER_TYPES.map((t) => `trigger.${t}` as const)], {
    error: `must be one of: ${TRIGGER_TYPES.join(', ')}`,
  })
  .transform((v) => normalizeTriggerType(v) as TriggerType);

/** A node of the body: its type one of the registered node types (a free string in packages/graph). */
const WorkflowNodeInput = GraphNode.extend({ type: NodeTypeName });

/**
 * The body of POST and PUT /workflows. Beyond field types it checks the trigger config for the
 * trigger type, the graph's structure (unique ids, edges between existing nodes, no cycles), each
 * node's config, and every `{{ … }}` in the configs (known roots and pipes, only upstream nodes
 * referenced); every problem is reported with its field path (`nodes.2.config.url`).
 * The result carries canonical node types and defaulted configs.
 */
export const WorkflowInput = z
  .object({
    name: storedText(z.string().trim().min(1, 'The name field is required.').max(200)),
    description: storedText(z.string().max(5000)).nullish(),
    trigger_type: TriggerTypeInput,
    trigger_config: z.record(z.string(), z.unknown()).default({}),
    status: WorkflowStatus.default('draft'),
    nodes: z.array(WorkflowNodeInput).max(MAX_NODES).default([]),
    edges: z.array(GraphEdge).max(MAX_EDGES).default([]),
    /** Sticky notes of the canvas; left out of a PUT, the saved ones stay. */
    notes: z
      .array(CanvasNote)
      .max(MAX_NOTES)
      .superRefine((notes, ctx) => {
        const seen = new Set<string>();
        notes.forEach((note, i) => {
          if (seen.has(note.id))
            ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate note id "${note.id}"` });
          seen.add(note.id);
        });
      })
      .optional(),
  })
  .transform((input, ctx) => {
    const triggerSchema = TriggerConfigByType[input.trigger_type as TriggerType];
    const trigger = triggerSchema.safeParse(input.trigger_config);
    if (!trigger.success) {
      for (const issue of trigger.error.issues) {
        ctx.addIssue({
          code: 'custom',
          path: ['trigger_config', ...issue.path.map(String)],
          message: humanMessage(issue),
        });
      }
    }
    if (trigger.success && input.trigger_type === 'tool') {
      const inputSchema = (trigger.data as { input_schema: Record<string, unknown> }).input_schema;
      for (const problem of inputSchemaProblems(inputSchema)) {
        ctx.addIssue({
          code: 'custom',
          path: ['trigger_config', 'input_schema'],
          message: `is not a valid JSON Schema: ${problem}`,
        });
      }
    }
    const graph = { nodes: input.nodes, edges: input.edges };
    const structural = validateGraphStructure(graph);
    const checked = validateNodes(graph);
    const expressions = checkGraphExpressions(checked.graph, { credentialNodeTypes: CREDENTIAL_NODE_TYPES });
    for (const issue of [...structural, ...checked.issues, ...expressions]) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: humanMessage(issue) });
    }
    // Edges without an id get a readable one that never repeats an id the caller chose.
    const taken = new Set(checked.graph.edges.flatMap((e) => (e.id === undefined ? [] : [e.id])));
    const edges = checked.graph.edges.map((edge, i) => {
      if (edge.id !== undefined) return { ...edge, id: edge.id };
      const base = `e${i}-${edge.source}-${edge.target}${edge.source_handle ? `-${edge.source_handle}` : ''}`;
      let id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
      taken.add(id);
      return { ...edge, id };
    });
    return {
      ...input,
      trigger_config: (trigger.success ? trigger.data : input.trigger_config) as Record<string, unknown>,
      nodes: checked.graph.nodes,
      edges,
    };
  });
export type WorkflowInput = z.output<typeof WorkflowInput>;
