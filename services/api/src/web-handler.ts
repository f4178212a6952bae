import { existsSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** web/build, as `pnpm --filter @weft/web build` (run by `weft up` when stale) leaves it. */
export const WEB_BUILD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/build');

/**
 * The SvelteKit app's request handler (adapter-node's build/handler.js), mounted by the one Node
 * server next to the API. Undefined when the app has not been built (the server then answers a
 * short page that says so).
 */
export async function loadWebHandler(dir = WEB_BUILD_DIR): Promise<RequestListener | undefined> {
  const file = path.join(dir, 'handler.js');
  if (!existsSync(file)) return undefined;
  const module = (await import(pathToFileURL(file).href)) as { handler: RequestListener };
  return module.handler;
}
