import type { TestProject } from 'vitest/node';
import { type ServiceName, serviceBundles } from '../src/service-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The API's and worker's bundles, as `weft up` runs them (temporal/test/support.ts spawns them). */
    serviceBundles: Record<ServiceName, string>;
  }
}

/**
 * Vitest global set-up: the service bundles built once for the run (or reused from an unchanged
 * one), before any test file spawns an API or worker process.
 */
export default async function setup(project: TestProject) {
  project.provide('serviceBundles', await serviceBundles());
}
