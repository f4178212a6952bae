import { type ApiError, ApiFailure } from '$api/client';

/**
 * A form's sending state: busy while a call runs, and the API's envelope when it fails, so the page
 * shows `message` on top and each `fields` entry next to its input.
 */
export class FormState {
  busy = $state(false);
  error = $state<ApiError | null>(null);

  fieldErrors(name: string): string[] | undefined {
    return this.error?.fields[name];
  }

  /** Runs `work`; returns its result, or undefined when it failed (the error is then shown). */
  async submit<T>(work: () => Promise<T>): Promise<T | undefined> {
    this.busy = true;
    this.error = null;
    try {
      return await work();
    } catch (error) {
      this.error =
        error instanceof ApiFailure
          ? error.envelope
          : { code: 'error', message: error instanceof Error ? error.message : String(error), fields: {} };
      return undefined;
    } finally {
      this.busy = false;
    }
  }
}
