/**
 * The editor's fields commit on `change` (one undo step per edit, not per keystroke), which the
 * browser fires when the field loses focus, never on a shortcut. Before a save reads the document,
 * this fires it on the focused text field so its pending value is committed; the later blur's own
 * change then carries the same value and records nothing.
 */
export function commitFocusedField(doc: Document = document) {
  const field = doc.activeElement;
  if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)
    field.dispatchEvent(new Event('change', { bubbles: true }));
}
