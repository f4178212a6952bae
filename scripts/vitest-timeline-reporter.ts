import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { testLogDirectory } from '../packages/telemetry/src/test-logs';

/**
 * Writes when each test file started and ended, seconds from the start of the run, to
 * `<test-log dir>/timeline.tsv` (start, end, seconds, project, file; by start). It shows where
 * the run's time goes: which files overlap, and when a worker sat idle or ran one file alone.
 */
export default class TimelineReporter implements Reporter {
  private readonly runStart = performance.now();
  private readonly started = new Map<string, number>();
  private readonly rows: { start: number; end: number; project: string; file: string }[] = [];

  onTestModuleStart(testModule: TestModule) {
    this.started.set(testModule.moduleId, performance.now());
  }

  onTestModuleEnd(testModule: TestModule) {
    const start = this.started.get(testModule.moduleId) ?? this.runStart;
    this.rows.push({
      start: (start - this.runStart) / 1000,
      end: (performance.now() - this.runStart) / 1000,
      project: testModule.project.name,
      file: path.relative(process.cwd(), testModule.moduleId),
    });
  }

  onTestRunEnd() {
    const lines = this.rows
      .sort((a, b) => a.start - b.start)
      .map((r) =>
        [r.start.toFixed(1), r.end.toFixed(1), (r.end - r.start).toFixed(1), r.project, r.file].join('\t'),
      );
    mkdirSync(testLogDirectory(), { recursive: true });
    writeFileSync(
      path.join(testLogDirectory(), 'timeline.tsv'),
      `start\tend\tseconds\tproject\tfile\n${lines.join('\n')}\n`,
    );
  }
}
