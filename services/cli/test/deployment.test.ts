import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLUSTER_SCHEMAS, CLUSTER_SERVER_SETTINGS, TEMPORAL_SERVER_VERSION } from '@weft/temporal/cluster';
import { DEV_SERVER_DYNAMIC_CONFIG } from '@weft/temporal/dev-server';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildImageWithoutDocker,
  checkRuntime,
  dockerIgnoreMatcher,
} from '../../../scripts/check-image-build';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const hasGo = spawnSync('go', ['version']).status === 0;

const composeCheckBinary = () => path.join(ROOT, '.tools', 'compose-check');

/** Builds deploy/compose-check (compose-go from the Go module proxy; a minute on a cold Go cache). */
function buildComposeCheck() {
  if (existsSync(composeCheckBinary())) return;
  execFileSync('go', ['build', '-o', composeCheckBinary(), '.'], {
    cwd: path.join(ROOT, 'deploy', 'compose-check'),
    stdio: 'pipe',
  });
}

/** docker-compose.yml as `docker compose` resolves it (compose-go: interpolation, the spec's schema, references). */
function resolvedCompose(file = path.join(ROOT, 'docker-compose.yml')): any {
  const bin = composeCheckBinary();
  const env = {
    PATH: process.env.PATH ?? '',
    APP_KEY: 'base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    POSTGRES_PASSWORD: 'owner-secret',
    WEFT_APP_DB_PASSWORD: 'app-secret',
    TEMPORAL_DB_PASSWORD: 'temporal-secret',
    METRICS_TOKEN: 'metrics-token',
    TEMPORAL_CODEC_TOKEN: 'codec-token',
    TEMPORAL_UI_PASSWORD_HASH: '$2a$14$hash',
  };
  const result = spawnSync(bin, [file], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

describe('deployment files', () => {
  it('deploy/temporal/dynamicconfig.yaml holds exactly the dev server dynamic config', () => {
    const text = readFileSync(path.join(ROOT, 'deploy/temporal/dynamicconfig.yaml'), 'utf8');
    const entries = [...text.matchAll(/^([\w.]+):\n\s+- value: (.+)$/gm)].map(
      ([, key, value]) => `${key}=${value}`,
    );
    expect(entries.sort()).toEqual([...DEV_SERVER_DYNAMIC_CONFIG].sort());
  });

  it('the build script builds the version temporal/cluster.ts runs', () => {
    const script = readFileSync(path.join(ROOT, 'scripts/build-temporal-server.sh'), 'utf8');
    expect(script).toContain(`TEMPORAL_SERVER_VERSION:-${TEMPORAL_SERVER_VERSION}`);
  });

  it('.dockerignore keeps VCS data, local state, secrets and installs out of the build context', () => {
    const ignored = dockerIgnoreMatcher(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8'));
    for (const file of [
      '.git/HEAD',
      '.env',
      '.data/postgres/PG_VERSION',
      '.tools/pnpm/x',
      'node_modules/a/b.js',
      'services/api/node_modules/x',
      'web/build/handler.js',
      'services/api/dist/service.mjs',
    ])
      expect(ignored(file), file).toBe(true);
    for (const file of [
      'package.json',
      'services/api/src/main.ts',
      'deploy/temporal/dynamicconfig.yaml',
      'web/src/app.html',
    ])
      expect(ignored(file), file).toBe(false);
  });

  describe.skipIf(!hasGo)('docker-compose.yml (compose-go, as `docker compose config` resolves it)', () => {
    beforeAll(buildComposeCheck, 300_000);

    it('is a valid Compose project, and a broken one is refused', () => {
      const project = resolvedCompose();
      expect(Object.keys(project.services).sort()).toEqual(
        [
          'api',
          'migrate',
          'postgres',
          'proxy',
          'temporal',
          'temporal-schema',
          'temporal-setup',
          'temporal-ui',
          'worker',
        ].sort(),
      );
      const dir = mkdtempSync(path.join(os.tmpdir(), 'weft-compose-'));
      try {
        const broken = path.join(dir, 'docker-compose.yml');
        execFileSync('sh', [
          '-c',
          `sed 's/condition: service_healthy }/condition: service_ready }/' '${path.join(ROOT, 'docker-compose.yml')}' > '${broken}'`,
        ]);
        expect(() => resolvedCompose(broken)).toThrow(/service_ready|condition/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('runs the same Temporal server, settings, dynamic config, schema tool and registration step as `weft up --temporal cluster`', () => {
      const { services } = resolvedCompose();
      expect(services.temporal.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
      expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
      expect(services.temporal.environment).toMatchObject(CLUSTER_SERVER_SETTINGS);
      const mount = services.temporal.volumes.find(
        (v: { target: string }) => v.target === services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH,
      );
      expect(mount?.source).toBe(path.join(ROOT, 'deploy/temporal/dynamicconfig.yaml'));
      const schemaJob = services['temporal-schema'].command.join(' ');
      for (const { database, schema } of CLUSTER_SCHEMAS)
        expect(schemaJob).toContain(`${database}:${schema}`);
      expect(schemaJob).toContain('temporal-sql-tool');
      expect(services['temporal-setup'].command.slice(-2)).toEqual(['temporal', 'setup']);
      expect(services.migrate.command.slice(-1)).toEqual(['migrate']);
    });

    it('publishes one API port behind which replicas scale, orders start-up by health, and restarts what runs', () => {
      const { services } = resolvedCompose();
      const published = Object.entries(services).flatMap(([name, s]: [string, any]) =>
        (s.ports ?? []).map(
          (p: { published: string; target: number }) => `${name}:${p.published}->${p.target}`,
        ),
      );
      expect(published.sort()).toEqual(['proxy:3000->3000', 'proxy:8233->8233']);
      expect(services.api.deploy.replicas).toBeGreaterThan(1);
      expect(services.worker.deploy.replicas).toBeGreaterThan(1);
      for (const name of ['api', 'worker']) {
        expect(services[name].depends_on.migrate.condition).toBe('service_completed_successfully');
        expect(services[name].depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
      }
      expect(services['temporal-setup'].depends_on.temporal.condition).toBe('service_healthy');
      expect(services.proxy.depends_on.api.condition).toBe('service_healthy');
      for (const [name, service] of Object.entries(services) as [string, any][]) {
        if (['migrate', 'temporal-schema', 'temporal-setup'].includes(name)) continue;
        expect(service.restart, name).toBe('unless-stopped');
        if (!['temporal-ui', 'proxy'].includes(name)) expect(service.healthcheck?.test, name).toBeDefined();
      }
      // The Web UI decodes through the proxy's /codec, which adds the token; the API requires it.
      expect(services['temporal-ui'].environment.TEMPORAL_CODEC_ENDPOINT).toMatch(/\/codec$/);
      expect(services.api.environment.TEMPORAL_CODEC_TOKEN).toBe('codec-token');
      expect(services.api.environment.TRUST_PROXY_HOPS).toBe('1');
      // A key rotation reaches every process that opens secrets (docs/key-custody.md); unset, the
      // ring is APP_KEY alone.
      for (const name of ['api', 'worker', 'migrate']) {
        expect(services[name].environment.APP_KEYS_PREVIOUS, name).toBe('');
      }
    });

    it('gives the owner URL to the migrate job only, drops every capability and limits every container', () => {
      const { services } = resolvedCompose();
      const holdsOwner = Object.entries(services)
        .filter(([name, s]: [string, any]) =>
          Object.entries(s.environment ?? {}).some(
            ([key, value]) =>
              // The postgres service is the owner; every other holder is a leak.
              name !== 'postgres' && (String(value).includes('owner-secret') || key === 'DATABASE_ADMIN_URL'),
          ),
        )
        .map(([name]) => name);
      expect(holdsOwner).toEqual(['migrate']);
      expect(services.migrate.environment).toMatchObject({
        DATABASE_ADMIN_URL: 'postgres://weft_owner@postgres:5432/weft',
        DATABASE_ADMIN_PASSWORD: 'owner-secret',
      });
      // No password inside any URL of any service: `user:password@` breaks on / # @ %.
      const urlsWithPassword = Object.entries(services).flatMap(([name, s]: [string, any]) =>
        Object.entries(s.environment ?? {})
          .filter(([, value]) => /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(String(value)))
          .map(([key]) => `${name}.${key}`),
      );
      expect(urlsWithPassword).toEqual([]);
      for (const name of ['api', 'worker', 'migrate']) {
        // Passwords travel raw beside password-less URLs (config joins them), so any character works.
        expect(services[name].environment.DATABASE_URL, name).toBe('postgres://weft_app@postgres:5432/weft');
        expect(services[name].environment.DATABASE_PASSWORD, name).toBe('app-secret');
        expect(services[name].environment.AUDIT_LOG_RETENTION_DAYS, name).toBe('365');
        // Prometheus scrapes with this token (the API's /metrics and the workers' :9464).
        expect(services[name].environment.METRICS_TOKEN, name).toBe('metrics-token');
      }
      // `weft temporal setup` needs no database at all; temporal-server has a role of its own.
      expect(services['temporal-setup'].environment.DATABASE_URL ?? '').toBe('');
      expect(services.temporal.environment).toMatchObject({
        POSTGRES_USER: 'temporal',
        POSTGRES_PWD: 'temporal-secret',
      });
      expect(services['temporal-schema'].environment).toMatchObject({
        SQL_USER: 'temporal',
        SQL_PASSWORD: 'temporal-secret',
      });
      expect(
        services.postgres.volumes.some((v: { target: string }) =>
          v.target.startsWith('/docker-entrypoint-initdb.d/'),
        ),
      ).toBe(true);
      for (const [name, service] of Object.entries(services) as [string, any][]) {
        expect(service.cap_drop, name).toEqual(['ALL']);
        // Only PostgreSQL's entrypoint gets back what it needs to hand its files to the postgres user.
        expect(service.cap_add ?? [], name).toEqual(
          name === 'postgres' ? ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'] : [],
        );
        if (name !== 'postgres') expect(service.security_opt, name).toContain('no-new-privileges:true');
        const limits = service.deploy?.resources?.limits;
        expect(Number(limits?.memory), name).toBeGreaterThan(64 * 1024 * 1024);
        expect(Number(limits?.cpus), name).toBeGreaterThan(0);
      }
    });

    it("the proxy actively health-checks every API replica compose names (not Caddy's unchecked dynamic upstreams)", () => {
      const project = resolvedCompose();
      expect(project.name).toBe('weft');
      const caddyfile = readFileSync(path.join(ROOT, 'deploy/proxy/Caddyfile'), 'utf8');
      expect(caddyfile).not.toMatch(/^\s*dynamic /m);
      const upstreams = caddyfile.match(/^\s*to (.+)$/m)?.[1]?.split(/\s+/) ?? [];
      expect(upstreams.length).toBeGreaterThanOrEqual(project.services.api.deploy.replicas);
      for (const [index, upstream] of upstreams.entries())
        expect(upstream).toBe(`${project.name}-api-${index + 1}:${project.services.api.expose[0]}`);
      expect(caddyfile).toMatch(/^\s*health_uri \/readyz$/m);
      expect(caddyfile).toMatch(/^\s*health_interval \d+s$/m);
      // Both sites that reach the API use the checked list.
      expect(caddyfile.match(/import api_replicas/g)).toHaveLength(2);
    });
  });

  // The Dockerfile's build, every RUN in order, outside Docker (scripts/check-image-build.ts).
  it('the image builds from its Dockerfile and its runtime stage is non-root, production-only and loads', () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), 'weft-image-'));
    execFileSync('chmod', ['755', workspace]);
    try {
      const stages = buildImageWithoutDocker(workspace);
      expect([...stages.keys()]).toEqual(['build', 'runtime']);
      const runtime = stages.get('runtime');
      expect(runtime?.user).toBe('node');
      expect(runtime?.env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
      expect(checkRuntime(runtime as NonNullable<typeof runtime>)).toEqual([]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }, 600_000);
});
