/**
 * Undo/redo over whole snapshots of the editor's document: every edit pushes the state after it,
 * undo steps back, redo forward, and a new edit after an undo drops the redo branch. Snapshots are
 * small (a graph of at most 500 nodes), so snapshots beat inverse commands here: nothing can drift.
 */
export class History<T> {
  #past: T[] = [];
  #future: T[] = [];
  #present: T;

  constructor(
    initial: T,
    private readonly limit = 200,
  ) {
    this.#present = initial;
  }

  get present(): T {
    return this.#present;
  }
  get canUndo(): boolean {
    return this.#past.length > 0;
  }
  get canRedo(): boolean {
    return this.#future.length > 0;
  }

  /** Records the state after an edit. */
  push(next: T) {
    this.#past.push(this.#present);
    if (this.#past.length > this.limit) this.#past.shift();
    this.#present = next;
    this.#future = [];
  }

  /** Replaces the present without an undo step (e.g. after a save answered the stored version). */
  replace(next: T) {
    this.#present = next;
  }

  undo(): T | undefined {
    const previous = this.#past.pop();
    if (previous === undefined) return undefined;
    this.#future.push(this.#present);
    this.#present = previous;
    return previous;
  }

  redo(): T | undefined {
    const next = this.#future.pop();
    if (next === undefined) return undefined;
    this.#past.push(this.#present);
    this.#present = next;
    return next;
  }
}
