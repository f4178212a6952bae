import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWebBuild } from '../../services/cli/src/web-build';

/** Vitest global set-up: the browser tests drive the built app (web/build), as `weft up` serves it. */
export default async function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  await ensureWebBuild(root, (line) => console.log(`[web] ${line}`));
}
