/**
 * Builds the CLI's bundle into services/cli/dist (service-bundle.ts) when a source changed:
 * services/cli/launch.mjs runs this through tsx, then the bundle. Says so on stderr, so that a
 * command's own output (`--json`) stays as it is.
 *
 *   node --import tsx services/cli/src/build-cli-bundle.ts
 */
import { cliBundle } from './service-bundle';

const started = performance.now();
const { built } = await cliBundle();
if (built) {
  process.stderr.write(
    `weft: CLI bundle built in ${((performance.now() - started) / 1000).toFixed(1)} s (services/cli/dist)\n`,
  );
}
