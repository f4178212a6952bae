import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runWeft, stackEnv, type WeftRun } from '../../cli/test/weft-process';

/**
 * The contract as third-party tools read it (issue 20): Redocly lints both served documents (the
 * API clients' default and the web app's `?audience=web`) with its recommended rules, and two
 * client generators (@hey-api/openapi-ts for TypeScript, openapi-python-client for Python) each
 * produce, from the default document, a client that does create → execute → get → list against a
 * real `weft up` stack, configured the ordinary way (hey-api: `auth: key`; Python:
 * AuthenticatedClient's token). Every request goes through a recording proxy, which shows that the
 * API key travels exactly once per request and that no cookie or CSRF header goes with it. Redocly
 * and hey-api are devDependencies; scripts/setup.sh installs the pinned openapi-python-client.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const HERE = path.join(import.meta.dirname, 'client-generators');
const BIN = path.join(ROOT, 'services/api/node_modules/.bin');
const PY_VENV = path.join(ROOT, '.tools/openapi-python-client-venv/bin');
// The CLI's bundle, as `./weft` runs it (services/cli/test/service-bundles-setup.ts built it).
const CLI = inject('cliBundle');
const run = promisify(execFile);

let workDir: string;
let stack: WeftRun | undefined;
let apiKey: string;
let documentPath: string;
let webDocumentPath: string;
let proxy: { server: Server; url: string; seen: { method: string; url: string; headers: string[] }[] };

/** Forwards every request to the stack and records its headers (name: value lines). */
async function startRecordingProxy(target: string): Promise<typeof proxy> {
  const seen: (typeof proxy)['seen'] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers });
    const upstream = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** How often the key appears in a request's headers, in any header (a cookie, Authorization …). */
const keyCount = (headers: string[]) => headers.join('\n').split(apiKey).length - 1;

/**
 * The requests of one round trip: each with the key exactly once, as `Authorization: Bearer`, and
 * with no cookie or CSRF header (the web app's session schemes) at all.
 */
function expectKeySentOnce(from: number) {
  const requests = proxy.seen.slice(from);
  expect(requests.length).toBeGreaterThanOrEqual(4);
  for (const { method, url, headers } of requests) {
    const name = `${method} ${url}: ${headers.join(' | ')}`;
    expect(keyCount(headers), name).toBe(1);
    expect(
      headers.some((h) => /^authorization: bearer /i.test(h) && h.endsWith(` ${apiKey}`)),
      name,
    ).toBe(true);
    expect(
      headers.filter((h) => /^(cookie|x-csrf-token):/i.test(h)),
      name,
    ).toEqual([]);
  }
  expect(requests.map((r) => `${r.method} ${r.url.replace(/[0-9a-f-]{36}/g, ':id')}`)).toEqual(
    expect.arrayContaining([
      'POST /api/v1/workflows',
      'POST /api/v1/workflows/:id/execute',
      'GET /api/v1/executions/:id',
      expect.stringMatching(/^GET \/api\/v1\/executions\?(.+&)?workflow_id=:id/),
    ]),
  );
}

/** The round trip's own report, checked the same way for both clients. */
function expectRoundTrip(report: Record<string, unknown>) {
  expect(report.workflowId).toMatch(/^[0-9a-f-]{36}$/);
  expect(report.executionWorkflowId).toBe(report.workflowId);
  expect(report.executionStatus).toBe('success');
  expect(report.listedIds).toEqual([report.executionId]);
}

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'weft-clients-'));
  const dataDir = path.join(workDir, 'data');
  await mkdir(dataDir, { mode: 0o755 }); // PostgreSQL may run as another system user
  const { env, base } = await stackEnv(dataDir);
  stack = runWeft(['up'], env, path.join(workDir, 'weft-up.log'));
  await stack.waitFor(/Weft is running\./);
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [CLI, ...args, '--json'], { env })).stdout);
  const org = await cli('org', 'create', '--name', 'Client generators');
  apiKey = (await cli('api-key', 'create', '--org', org.id, '--name', 'generators', '--permissions', '*'))
    .key;
  proxy = await startRecordingProxy(base);
  const save = async (query: string, file: string) => {
    const served = await fetch(`${base}/api/v1/openapi.json${query}`);
    expect(served.status).toBe(200);
    await writeFile(path.join(workDir, file), await served.text());
    return path.join(workDir, file);
  };
  documentPath = await save('', 'openapi.json');
  webDocumentPath = await save('?audience=web', 'openapi-web.json');
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  proxy?.server.closeAllConnections();
  proxy?.server.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

describe('the served OpenAPI document under third-party tools', () => {
  it.each([
    ['the default (API clients)', () => documentPath],
    ["the web app's (?audience=web)", () => webDocumentPath],
  ])(
    '%s document passes redocly lint (recommended rules) with no error',
    async (_, document) => {
      const args = ['lint', document(), '--config', path.join(HERE, 'redocly.yaml'), '--format', 'json'];
      const result = await run(path.join(BIN, 'redocly'), args, { maxBuffer: 64 << 20 }).catch(
        (failed: { stdout: string; stderr: string }) => failed,
      );
      const problems = (
        JSON.parse(result.stdout) as { problems: { severity: string; ruleId: string; message: string }[] }
      ).problems;
      const errors = problems.filter((p) => p.severity === 'error');
      expect(errors.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    },
    120_000,
  );

  it('declares one scheme in the default document, and the session schemes only in the web one', async () => {
    const schemes = async (file: string) =>
      Object.keys(JSON.parse(await readFile(file, 'utf8')).components.securitySchemes);
    expect(await schemes(documentPath)).toEqual(['Bearer']);
    expect(await schemes(webDocumentPath)).toEqual(expect.arrayContaining(['Session', 'Csrf']));
  });

  it('gives a hey-api TypeScript client that, with `auth: key`, creates, runs, reads and lists, sending the key once', async () => {
    const out = path.join(workDir, 'hey-api');
    await run(path.join(BIN, 'openapi-ts'), [
      ...['-i', documentPath, '-o', path.join(out, 'weft-client'), '-c', '@hey-api/client-fetch'],
      '--no-log-file',
    ]);
    await writeFile(path.join(out, 'package.json'), '{ "type": "module" }\n'); // top-level await
    const script = path.join(out, 'round-trip.ts');
    await copyFile(path.join(HERE, 'hey-api-round-trip.ts'), script);
    // The script type-checks against the generated types (strict, no @types/node: only what a
    // browser or any fetch runtime has).
    await writeFile(
      path.join(out, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['round-trip.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
    await run(tsc, ['-p', path.join(out, 'tsconfig.json')]).catch((failed: { stdout: string }) => {
      throw new Error(`the round trip does not type-check against the generated client:\n${failed.stdout}`);
    });
    const from = proxy.seen.length;
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', script, `${proxy.url}/api/v1`, apiKey],
      {
        cwd: ROOT,
      },
    );
    expectRoundTrip(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
    expectKeySentOnce(from);
  }, 180_000);

  // A machine without the venv skips with one line; `./weft test` installs it (scripts/setup.sh).
  it.skipIf(!existsSync(path.join(PY_VENV, 'openapi-python-client')))(
    'gives an openapi-python-client client with every operation, that creates, runs, reads and lists',
    async () => {
      const out = path.join(workDir, 'python');
      await mkdir(out);
      const config = path.join(out, 'config.yml');
      // The package name; ruff formatting of the output is not needed to import it.
      await writeFile(
        config,
        'project_name_override: weft_client\npackage_name_override: weft_client\npost_hooks: []\n',
      );
      const generated = await run(path.join(PY_VENV, 'openapi-python-client'), [
        ...['generate', '--path', documentPath, '--config', config],
        ...['--meta', 'none', '--output-path', path.join(out, 'weft_client')],
      ]);
      const output = `${generated.stdout}\n${generated.stderr}`;
      // It warns, and drops the operation, for anything in the document it cannot read.
      expect(output).not.toMatch(/warning|will not be generated|unable to parse/i);
      // One module per operation under api/<tag>/: as many as the document has operations.
      const document = JSON.parse(await readFile(documentPath, 'utf8')) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const operations = Object.values(document.paths).flatMap((item) =>
        ['get', 'put', 'post', 'delete', 'patch'].filter((method) => item[method]),
      );
      const modules = (await readdir(path.join(out, 'weft_client/api'), { recursive: true })).filter(
        (file) => file.endsWith('.py') && !file.endsWith('__init__.py'),
      );
      expect(modules.length).toBe(operations.length);
      const from = proxy.seen.length;
      const { stdout } = await run(path.join(PY_VENV, 'python'), [
        ...[path.join(HERE, 'python_round_trip.py'), out, `${proxy.url}/api/v1`, apiKey],
      ]);
      expectRoundTrip(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
      expectKeySentOnce(from);
    },
    180_000,
  );
});
