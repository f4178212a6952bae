/**
 * Builds the API's and the worker's bundles into services/<name>/dist (service-bundle.ts): the
 * Docker image's build stage runs this; `weft up` and the test run build them themselves.
 *
 *   node --import tsx services/cli/src/build-service-bundles.ts
 */
import { serviceBundles } from './service-bundle';

const bundles = await serviceBundles((line) => console.log(line));
console.log(`service bundles: ${Object.values(bundles).join(', ')}`);
