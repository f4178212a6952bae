/**
 * How many short calls (HTTP requests, chat sends) run as local activities at once in one worker:
 * in all, and per organization. A local call holds its workflow task slot until the server answers
 * (the SDK gives a worker 40), so one organization's slow server could otherwise hold every slot and
 * stall everybody's runs. The caps leave half the slots to runs that do not wait, and the fast lane
 * to more than one organization. Past either cap a call goes back to the workflow, which runs it as
 * a regular activity: the task queue's per-organization fairness then applies, and no slot waits.
 */
export const LOCAL_CALL_LIMITS = { total: 20, perOrganization: 8 } as const;

export class LocalCallGate {
  private total = 0;
  private readonly byOrganization = new Map<string, number>();

  constructor(private readonly limits: { total: number; perOrganization: number } = LOCAL_CALL_LIMITS) {}

  /** A place for one call, and the function that gives it back; undefined when a cap is reached. */
  tryEnter(organizationId: string): (() => void) | undefined {
    const held = this.byOrganization.get(organizationId) ?? 0;
    if (this.total >= this.limits.total || held >= this.limits.perOrganization) return undefined;
    this.total++;
    this.byOrganization.set(organizationId, held + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.total--;
      const now = (this.byOrganization.get(organizationId) ?? 1) - 1;
      if (now === 0) this.byOrganization.delete(organizationId);
      else this.byOrganization.set(organizationId, now);
    };
  }

  /** Calls under way (for tests and metrics). */
  get held(): number {
    return this.total;
  }
}
