import type { TestProject } from 'vitest/node';
import { cliBundle, type ServiceName, serviceBundles } from '../src/service-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The API's and worker's bundles, as `weft up` runs them (temporal/test/support.ts spawns them). */
    serviceBundles: Record<ServiceName, string>;
    /** The CLI's bundle, as `./weft` runs it (weft-process.ts's `weftCli`). */
    cliBundle: string;
  }
}

/**
 * Vitest global set-up: the service and CLI bundles built once for the run (or reused from an
 * unchanged one), before any test file spawns an API, worker or `weft` process.
 */
export default async function setup(project: TestProject) {
  const [services, cli] = await Promise.all([serviceBundles(), cliBundle()]);
  project.provide('serviceBundles', services);
  project.provide('cliBundle', cli.file);
}
