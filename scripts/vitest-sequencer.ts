import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, measured (seconds on 2 cores): started first, so that on a fresh clone,
 * where vitest has no timings cached and orders by file size, the contract fuzz run (about 250 s,
 * a small file) does not start last and leave one worker busy alone for minutes.
 */
const LONGEST_FIRST = [
  'services/api/test/contract-fuzz.test.ts', // 246
  'web/test/web-app.test.ts', // 119
  'services/cli/test/weft-up.test.ts', // 76
  'services/cli/test/weft-up-supervision.test.ts', // 62
  'temporal/test/engine.test.ts', // 57
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((suffix) => file.moduleId.endsWith(suffix));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
