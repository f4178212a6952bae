import type { ExecutionStatus, StepError, StepRecord } from '../../shared';
import { local } from './activities';

const REPORT_MAX_STEPS = 500;
const REPORT_MAX_BYTES = 512 * 1024;

/**
 * Step records not yet written to PostgreSQL, and the report that writes them with the execution's
 * status (one local activity per report; a replayed report is harmless, rows are upserted).
 */
export class StepReporter {
  private readonly unreported = new Map<string, StepRecord>();

  /**
   * @param redact values that must not be stored (a chat sender's number, which reaches the run
   *   only through Temporal) and what steps show instead, wherever a node copied them.
   */
  constructor(
    private readonly ids: { executionId: string; organizationId: string },
    private readonly redact?: { value: string; shown: string },
  ) {}

  /** Whether a step was recorded since the last report. */
  get pending(): boolean {
    return this.unreported.size > 0;
  }

  /** Keeps the latest record of a step (node and iteration) until the next report. */
  record(step: StepRecord): void {
    this.unreported.set(`${step.nodeId}#${step.iteration}`, this.redacted(step));
  }

  private redactedExtra<T extends { error?: StepError | null }>(extra: T): T {
    if (!this.redact || !extra.error || !JSON.stringify(extra.error).includes(this.redact.value))
      return extra;
    return JSON.parse(JSON.stringify(extra).split(this.redact.value).join(this.redact.shown)) as T;
  }

  private redacted(step: StepRecord): StepRecord {
    if (!this.redact) return step;
    const json = JSON.stringify(step);
    if (!json.includes(this.redact.value)) return step;
    return JSON.parse(json.split(this.redact.value).join(this.redact.shown)) as StepRecord;
  }

  async report(
    status: ExecutionStatus,
    attempt: number,
    extra: { error?: StepError | null; completedAt?: string } = {},
  ): Promise<void> {
    const steps = [...this.unreported.values()];
    this.unreported.clear();
    // Temporal refuses payloads over 2 MB: long loops report their steps in bounded chunks. Only the
    // last chunk carries the new status, so nobody sees a finished execution with steps still missing.
    const chunks = chunkSteps(steps);
    for (const [i, chunk] of chunks.entries()) {
      const last = i === chunks.length - 1;
      await local.saveProgress({
        ...this.ids,
        status: last ? status : 'running',
        attempt,
        steps: chunk,
        ...(last ? this.redactedExtra(extra) : {}),
      });
    }
  }
}

/** Splits step records into reports of at most 500 steps and about 512 KiB each (at least one chunk). */
export function chunkSteps(steps: StepRecord[]): StepRecord[][] {
  const chunks: StepRecord[][] = [[]];
  let bytes = 0;
  for (const step of steps) {
    const size = JSON.stringify(step).length;
    const current = chunks[chunks.length - 1] as StepRecord[];
    if (current.length > 0 && (current.length >= REPORT_MAX_STEPS || bytes + size > REPORT_MAX_BYTES)) {
      chunks.push([step]);
      bytes = size;
    } else {
      current.push(step);
      bytes += size;
    }
  }
  return chunks;
}
