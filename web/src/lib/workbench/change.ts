/** The words and tone of a compared node's change (never colour alone). */
export const CHANGE_LABELS = {
  same: 'Same',
  changed: 'Changed',
  added: 'Added',
  removed: 'Removed',
} as const;

export type StepChange = keyof typeof CHANGE_LABELS;

/** A comparison's counts, in the order the page shows them. */
export function changeCounts(nodes: { change: StepChange }[]): [StepChange, number][] {
  return (Object.keys(CHANGE_LABELS) as StepChange[]).map((c) => [
    c,
    nodes.filter((n) => n.change === c).length,
  ]);
}
