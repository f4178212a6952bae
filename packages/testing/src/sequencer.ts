import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take minutes (each runs a whole `weft up` stack, real service processes or a
 * browser), longest first, as measured on the 2-core machine (`.data/test-logs/timeline.tsv` of a
 * full run, 2026-11-27, after the 10,000-item loop stopped waiting on timers). They
 * start first, so that no worker is left running one of them alone at the end of the run while
 * the other idles.
 */
export const LONGEST_FILES = [
  'services/api/test/contract-fuzz.test.ts',
  'web/test/web-app.test.ts',
  'services/cli/test/weft-up.test.ts',
  'services/cli/test/weft-up-supervision.test.ts',
  'web/test/editor.test.ts',
  'web/test/editor-fixes.test.ts',
  'temporal/test/durability.test.ts',
  'services/cli/test/backup-restore.test.ts',
  'services/cli/test/deployment.test.ts',
  'web/test/build-loop.test.ts',
  'web/test/workbench.test.ts',
  'temporal/test/durability-agent.test.ts',
  'web/test/approvals.test.ts',
  'services/cli/test/keys.test.ts',
  'temporal/test/durability-chat.test.ts',
  'services/cli/test/admin-commands.test.ts',
  'web/test/tool-trigger.test.ts',
  'web/test/hosted-form.test.ts',
  'services/api/test/client-generators.test.ts',
  'web/test/agent-step.test.ts',
  'services/cli/test/weft-up-startup.test.ts',
  'temporal/test/templates-e2e.test.ts',
  'temporal/test/durability-combined.test.ts',
];

/**
 * Vitest's order (failed first, then by the previous run's durations, else by size) with the
 * longest files moved to the front of their group. A fresh clone has no previous durations, and a
 * short file that starts a whole stack sorts by size near the end.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
