import type { components } from '$api/schema';

/** The context key under which the editor offers per-node run state and save errors to the steps. */
export const STEP_OVERLAY = Symbol('step-overlay');

export interface StepOverlay {
  step(nodeId: string): components['schemas']['Step'] | undefined;
  /** A short message when the last save was refused because of this node. */
  errors(nodeId: string): string | undefined;
}

/** The context key under which the editor lets sticky notes change themselves. */
export const NOTE_EDITOR = Symbol('note-editor');

export interface NoteEditor {
  updateNote(nodeId: string, change: { text?: string; width?: number; height?: number }): void;
}
