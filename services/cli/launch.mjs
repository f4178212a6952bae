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

if (!(await bundleIsFresh())) {
  const build = fileURLToPath(new URL('./src/build-cli-bundle.ts', import.meta.url));
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', build], { stdio: ['ignore', 2, 2] });
  if (status !== 0) process.exit(status ?? 1);
}
await import(new URL('main.mjs', dist).href);
