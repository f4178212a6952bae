import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliEnv, loadProcessEnv } from '@weft/config';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Reads `.env` (never overriding variables already set) and parses the CLI environment once. */
export function loadCliEnv(file = path.join(PROJECT_ROOT, '.env')): CliEnv {
  // Node's own parser: no `$` expansion (a bcrypt hash stays intact); quoted values may hold `#`.
  if (existsSync(file)) process.loadEnvFile(file);
  return loadProcessEnv(CliEnv);
}

/** Secrets of the embedded database derive from APP_KEY, so no second secret has to be kept. */
export function derivedSecret(appKey: Buffer, purpose: string): string {
  return createHmac('sha256', appKey).update(`weft/${purpose}`).digest('hex').slice(0, 32);
}

export function dataPath(env: CliEnv, ...parts: string[]): string {
  return path.resolve(PROJECT_ROOT, env.WEFT_DATA_DIR, ...parts);
}

export function weftVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
