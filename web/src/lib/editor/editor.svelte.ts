import type { components } from '$api/schema';
import { autoLayout } from '$lib/canvas/layout';
import {
  type CanvasEdge,
  type CanvasNode,
  type CanvasNoteNode,
  edgeKey,
  fromCanvas,
  NOTE_SIZE,
  type NodePorts,
  notesFromCanvas,
  notesToCanvas,
  outputHandles,
  type SavedEdge,
  type SavedNode,
  type SavedNote,
  toCanvas,
} from '$lib/canvas/mapper';
import { nodeLook } from '$lib/canvas/node-look';
import {
  type CanvasTriggerEdge,
  type CanvasTriggerNode,
  TRIGGER_NODE_ID,
  triggerDetail,
  triggerOnCanvas,
  withoutTriggerEdges,
} from '$lib/canvas/trigger-node';
import {
  connectionProblem,
  copyFragment,
  type Fragment,
  fieldErrorsByNode,
  pasteFragment,
  uniqueNodeId,
} from './graph-edits';
import { History } from './history';
import { stepMarkers } from './step-view/markers';

type NodeType = components['schemas']['NodeType'];
type Step = components['schemas']['Step'];

/** What the editor edits: a workflow's definition (the body of PUT /workflows/{id} minus its status). */
export interface EditorDocument {
  name: string;
  description: string | null;
  trigger_type: string;
  trigger_config: Record<string, unknown>;
  nodes: SavedNode[];
  edges: SavedEdge[];
  notes: SavedNote[];
}

const COLUMN = 288;

/**
 * The editor's state: the canvas's nodes and edges (bound to Svelte Flow), the trigger and name,
 * undo/redo over whole-document snapshots, the draft kept in the browser, the API's field errors
 * mapped onto nodes and a test run's step statuses. The canvas never owns the truth: every edit
 * goes through here and is one undo step.
 */
export class WorkflowEditor {
  /** The trigger, steps and sticky notes, as Svelte Flow draws them. */
  nodes = $state.raw<(CanvasNode | CanvasNoteNode | CanvasTriggerNode)[]>([]);
  edges = $state.raw<(CanvasEdge | CanvasTriggerEdge)[]>([]);
  name = $state('');
  description = $state<string | null>(null);
  triggerType = $state('manual');
  triggerConfig = $state<Record<string, unknown>>({});
  /** The saved version this edit is based on (sent as If-Match). */
  version = $state(0);
  /** The last saved document, as JSON; `dirty` compares with it. */
  savedJson = $state('');
  currentJson = $state('');
  canUndo = $state(false);
  canRedo = $state(false);
  /** Messages for one node's fields (`config.url`, `_` for the node itself), from a refused save. */
  nodeErrors = $state.raw(new Map<string, Record<string, string[]>>());
  otherErrors = $state.raw<Record<string, string[]>>({});
  /** A test run's (or a past execution's) steps by node id, shown on the canvas. */
  runSteps = $state.raw(new Map<string, Step>());
  notice = $state('');

  readonly dirty = $derived(this.currentJson !== this.savedJson);
  /** The selected steps (notes are selected too, but have no panel and no outputs). */
  readonly selected = $derived(
    this.nodes.filter(
      (n): n is CanvasNode => n.type === 'step' && (n as { selected?: boolean }).selected === true,
    ),
  );
  readonly steps = $derived(this.nodes.filter((n): n is CanvasNode => n.type === 'step'));
  #notes = () => this.nodes.filter((n): n is CanvasNoteNode => n.type === 'note');

  #history = new History<string>('');
  #catalog: NodeType[] = [];

  constructor(
    readonly workflowId: string,
    catalog: NodeType[],
  ) {
    this.#catalog = catalog;
  }

  /** A node type as GET /node-types describes it, with the schemas and ports of `version` (absent = 1). */
  typeOf(type: string, version = 1): NodeType | undefined {
    const latest = this.#catalog.find((t) => t.type === type);
    const older = latest?.previous_versions.find((v) => v.version === version);
    return latest && older ? { ...latest, ...older } : latest;
  }

  /** Adds what the step component draws: the type's name and the node's output handles. */
  #describe = (node: CanvasNode): CanvasNode => {
    const type = this.typeOf(node.data.saved.type, node.data.saved.type_version);
    return {
      ...node,
      class: stepMarkers(node.data.saved),
      data: {
        ...node.data,
        typeName: type?.name,
        look: nodeLook(type),
        handles: outputHandles(type?.ports as NodePorts | undefined, node.data.saved.config),
      },
    };
  };

  document(): EditorDocument {
    const graph = fromCanvas(this.nodes, this.edges);
    return {
      name: this.name,
      description: this.description,
      trigger_type: this.triggerType,
      trigger_config: $state.snapshot(this.triggerConfig) as Record<string, unknown>,
      nodes: graph.nodes,
      edges: graph.edges,
      notes: notesFromCanvas(this.nodes),
    };
  }

  /** Shows a document (loaded, restored or undone to) without recording an undo step. */
  #show(doc: EditorDocument) {
    this.name = doc.name;
    this.description = doc.description;
    this.triggerType = doc.trigger_type;
    this.triggerConfig = doc.trigger_config;
    const canvas = toCanvas(doc.nodes, doc.edges);
    const placed = canvas.needsLayout ? autoLayout(canvas.nodes, canvas.edges) : canvas.nodes;
    this.nodes = [...placed.map(this.#describe), ...notesToCanvas(doc.notes ?? [])];
    this.edges = canvas.edges;
    this.#syncTrigger();
  }

  /** Redraws the trigger node left of the first root step, linked to every root (never saved). */
  #syncTrigger() {
    const previous = this.nodes.find((n) => n.type === 'trigger') as { selected?: boolean } | undefined;
    const others = this.nodes.filter((n): n is CanvasNode | CanvasNoteNode => n.type !== 'trigger');
    const edges = withoutTriggerEdges(this.edges) as CanvasEdge[];
    const trigger = triggerOnCanvas(
      others.filter((n): n is CanvasNode => n.type === 'step'),
      edges,
      {
        triggerType: this.triggerType,
        detail: triggerDetail(
          this.triggerType,
          $state.snapshot(this.triggerConfig) as Record<string, unknown>,
        ),
      },
    );
    // First in the list, so Tab on the canvas reaches it first, as it runs first.
    this.nodes = [{ ...trigger.node, selected: previous?.selected ?? false }, ...others];
    this.edges = [...edges, ...trigger.edges];
  }

  /** Opens a saved workflow: a fresh history whose first state is what the server holds. */
  load(doc: EditorDocument, version: number) {
    this.#show(doc);
    this.version = version;
    this.currentJson = JSON.stringify(this.document());
    this.savedJson = this.currentJson;
    this.#history = new History(this.currentJson);
    this.#syncHistoryFlags();
  }

  /** Records the current state as one undo step (after any edit) and keeps the draft. */
  commit() {
    this.#syncTrigger();
    const json = JSON.stringify(this.document());
    if (json === this.#history.present) return;
    this.#history.push(json);
    this.currentJson = json;
    this.#syncHistoryFlags();
    this.#keepDraft();
  }

  undo() {
    const previous = this.#history.undo();
    if (previous !== undefined) this.#restore(previous);
  }

  redo() {
    const next = this.#history.redo();
    if (next !== undefined) this.#restore(next);
  }

  #restore(json: string) {
    this.#show(JSON.parse(json) as EditorDocument);
    this.currentJson = json;
    this.#syncHistoryFlags();
    this.#keepDraft();
  }

  #syncHistoryFlags() {
    this.canUndo = this.#history.canUndo;
    this.canRedo = this.#history.canRedo;
  }

  // --- edits -------------------------------------------------------------------------------------

  /** Whether a step runs the steps on its `each` output once per item: its type's ports say so (a loop). */
  loops(node: Pick<SavedNode, 'type' | 'type_version'> | undefined): boolean {
    const ports = node
      ? (this.typeOf(node.type, node.type_version)?.ports as NodePorts | undefined)
      : undefined;
    return Array.isArray(ports?.outputs) && ports.outputs.includes('each');
  }

  #latestVersion(type: string): { type_version?: number } {
    const version = this.typeOf(type)?.version ?? 1;
    return version > 1 ? { type_version: version } : {};
  }

  /** A new step of `type`: at `position`, or after the selected step (connected to it), else at the end. */
  addNode(type: string, position?: { x: number; y: number }) {
    const taken = new Set(this.nodes.map((n) => n.id));
    const id = uniqueNodeId(type, taken);
    const after = position ? undefined : this.selected.at(-1);
    const rightmost = this.steps.reduce((max, n) => Math.max(max, n.position.x), -COLUMN);
    const at =
      position ??
      (after ? { x: after.position.x + COLUMN, y: after.position.y } : { x: rightmost + COLUMN, y: 0 });
    const node = this.#describe({
      id,
      type: 'step',
      position: at,
      // A new step gets its type's latest version (absent while that is 1, as in nodes saved before versions).
      data: { saved: { id, type, config: {}, ...this.#latestVersion(type) }, unplaced: false },
    });
    this.nodes = [
      ...this.nodes.map((n) => ({ ...n, selected: false })),
      { ...node, selected: true } as CanvasNode,
    ];
    if (after) {
      const handles = (after.data as { handles?: string[] }).handles ?? [];
      this.edges = [...this.edges, this.edgeFor(after.id, id, handles[0])];
    }
    this.commit();
    return id;
  }

  edgeFor(source: string, target: string, handle?: string | null): CanvasEdge {
    const saved: SavedEdge = { source, target, ...(handle ? { source_handle: handle } : {}) };
    return {
      id: edgeKey(saved),
      source,
      target,
      ...(handle ? { sourceHandle: handle, label: handle } : {}),
      data: { saved },
    };
  }

  /** Why a connection is refused (shown to the user), or null. */
  connectionProblem(source: string, target: string, handle?: string | null) {
    return connectionProblem(fromCanvas(this.nodes, this.edges), source, target, handle);
  }

  /** Replaces one step's saved fields (label, on_failure, config) as one edit. */
  updateNode(id: string, change: Partial<Omit<SavedNode, 'id' | 'position'>>) {
    this.nodes = this.nodes.map((n) =>
      n.id === id && n.type === 'step'
        ? this.#describe({ ...n, data: { ...n.data, saved: { ...n.data.saved, ...change } } })
        : n,
    );
    // A switch whose cases changed may have lost a handle its edges used.
    const handles = new Map(this.steps.map((n) => [n.id, (n.data as { handles?: string[] }).handles ?? []]));
    this.edges = this.edges.filter((e) => !e.sourceHandle || handles.get(e.source)?.includes(e.sourceHandle));
    this.commit();
  }

  /** Pins these outputs on their steps, as one edit (one undo): "Debug in editor" (debug.ts). */
  pinOutputs(pins: ReadonlyMap<string, Record<string, unknown>>) {
    if (pins.size === 0) return;
    this.nodes = this.nodes.map((n) => {
      if (n.type !== 'step') return n;
      const step = n as CanvasNode;
      const pin = pins.get(step.id);
      return pin
        ? this.#describe({
            ...step,
            data: { ...step.data, saved: { ...step.data.saved, pinned_output: pin } },
          })
        : n;
    });
    this.commit();
  }

  updateTrigger(type: string, config: Record<string, unknown>) {
    this.triggerType = type;
    this.triggerConfig = config;
    this.commit();
  }

  rename(name: string) {
    this.name = name;
    this.commit();
  }

  /** A sticky note at `position`, or above the selected step, or left of everything. */
  addNote(position?: { x: number; y: number }) {
    const taken = new Set(this.#notes().map((n) => n.data.note.id));
    let n = 1;
    while (taken.has(`note_${n}`)) n++;
    const anchor = this.selected.at(-1);
    const at =
      position ??
      (anchor
        ? { x: anchor.position.x, y: anchor.position.y - NOTE_SIZE.height - 32 }
        : { x: -NOTE_SIZE.width - 64, y: 0 });
    const [note] = notesToCanvas([{ id: `note_${n}`, text: '', position: at, color: 'yellow' }]);
    if (!note) return;
    this.nodes = [
      ...this.nodes.map((node) => ({ ...node, selected: false })),
      { ...note, selected: true } as CanvasNoteNode,
    ];
    this.commit();
  }

  updateNote(nodeId: string, change: Partial<Omit<SavedNote, 'id' | 'position'>>) {
    this.nodes = this.nodes.map((n) =>
      n.id === nodeId && n.type === 'note'
        ? {
            ...n,
            ...(change.width !== undefined ? { width: change.width } : {}),
            ...(change.height !== undefined ? { height: change.height } : {}),
            data: { note: { ...n.data.note, ...change } },
          }
        : n,
    );
    this.commit();
  }

  deleteSelected() {
    const ids = new Set(
      this.nodes
        .filter((n) => n.type !== 'trigger' && (n as { selected?: boolean }).selected)
        .map((n) => n.id),
    );
    const edgeIds = new Set(
      this.edges
        .filter((e) => e.source !== TRIGGER_NODE_ID && (e as { selected?: boolean }).selected)
        .map((e) => e.id),
    );
    if (!ids.size && !edgeIds.size) return;
    this.nodes = this.nodes.filter((n) => !ids.has(n.id));
    this.edges = this.edges.filter((e) => !ids.has(e.source) && !ids.has(e.target) && !edgeIds.has(e.id));
    this.commit();
  }

  selectAll() {
    this.nodes = this.nodes.map((n) => ({ ...n, selected: true }));
  }

  selectOnly(id: string | null) {
    this.nodes = this.nodes.map((n) => ({ ...n, selected: n.id === id }));
  }

  copySelection(): Fragment | null {
    const ids = new Set(this.selected.map((n) => n.id));
    return ids.size ? copyFragment(fromCanvas(this.nodes, this.edges), ids) : null;
  }

  paste(fragment: Fragment) {
    const { graph, added } = pasteFragment(fromCanvas(this.nodes, this.edges), fragment);
    const addedIds = new Set(added);
    const canvas = toCanvas(graph.nodes, graph.edges);
    this.nodes = [
      ...canvas.nodes.map((n) => ({ ...this.#describe(n), selected: addedIds.has(n.id) }) as CanvasNode),
      ...this.#notes().map((n) => ({ ...n, selected: false })),
    ];
    this.edges = canvas.edges;
    this.commit();
    return added.length;
  }

  duplicateSelection() {
    const fragment = this.copySelection();
    if (fragment) this.paste(fragment);
  }

  layout() {
    this.nodes = [...autoLayout(this.steps, this.edges).map(this.#describe), ...this.#notes()];
    this.commit();
  }

  // --- saving ------------------------------------------------------------------------------------

  /** After a successful save: the server's version becomes the base, errors and the draft go. */
  saved(doc: EditorDocument, version: number) {
    this.version = version;
    this.savedJson = JSON.stringify(doc);
    this.currentJson = JSON.stringify(this.document());
    this.#history.replace(this.currentJson);
    this.nodeErrors = new Map();
    this.otherErrors = {};
    this.dropDraft();
  }

  /** A refused save: each field error lands on its node (and field) or on the trigger/name. */
  showFieldErrors(fields: Record<string, string[]>) {
    const { byNode, other } = fieldErrorsByNode(fields, this.document().nodes);
    this.nodeErrors = byNode;
    this.otherErrors = other;
  }

  get #draftKey() {
    return `weft.draft.${this.workflowId}`;
  }

  #keepDraft() {
    try {
      if (this.dirty) {
        localStorage.setItem(
          this.#draftKey,
          JSON.stringify({
            version: this.version,
            saved_at: new Date().toISOString(),
            document: this.currentJson,
          }),
        );
      } else {
        this.dropDraft();
      }
    } catch {
      // Storage full or disabled: the draft is a convenience, the editor still works.
    }
  }

  dropDraft() {
    try {
      localStorage.removeItem(this.#draftKey);
    } catch {
      // see #keepDraft
    }
  }

  /** An unsaved draft of this workflow left in this browser, if it differs from what was loaded. */
  pendingDraft(): { version: number; saved_at: string; document: string } | null {
    try {
      const raw = localStorage.getItem(this.#draftKey);
      const draft = raw ? (JSON.parse(raw) as { version: number; saved_at: string; document: string }) : null;
      return draft && draft.document !== this.savedJson ? draft : null;
    } catch {
      return null;
    }
  }

  restoreDraft(json: string) {
    this.#restore(json);
    this.#history.push(json);
    this.#syncHistoryFlags();
  }
}
