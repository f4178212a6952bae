// What `./weft` runs: the CLI's bundle (services/cli/dist, see src/service-bundle.ts), rebuilt
// first when a file it was built from changed. Plain JavaScript, as nothing is compiled yet when
// it starts. A command then loads ~0.5 s less CPU than through tsx.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dist = new URL('./dist/', import.meta.url);

/** Every file the manifest names still has its hash (the check of src/service-bundle.ts's isFresh). */
async function bundleIsFresh() {
  try {
    const { files } = JSON.parse(await readFile(new URL('manifest.json', dist), 'utf8'));
    const entries = Object.entries(files);
    const same = await Promise.all(
      entries.map(
        async ([file, hash]) =>
          createHash('sha256')
            .update(await readFile(file))
            .digest('hex') === hash,
      ),
    );
    return entries.length > 0 && same.every(Boolean);
  } catch {
    return false;
  }
}

// tsx as this checkout installed it, wherever the command is run from.
const tsx = import.meta.resolve('tsx');
const source = (file) => fileURLToPath(new URL(file, import.meta.url));

if (!(await bundleIsFresh())) {
  const { status } = spawnSync(process.execPath, ['--import', tsx, source('./src/build-cli-bundle.ts')], {
    stdio: ['ignore', 2, 2],
  });
  if (status !== 0) {
    // A file that does not build (an edit under way) breaks only the commands that load it, as
    // before the bundle: run the sources through tsx this once.
    process.stderr.write('weft: the CLI bundle did not build; running the sources through tsx\n');
    const run = spawnSync(
      process.execPath,
      ['--import', tsx, source('./src/main.ts'), ...process.argv.slice(2)],
      {
        stdio: 'inherit',
      },
    );
    process.exit(run.status ?? 1);
  }
}
await import(new URL('main.mjs', dist).href);
