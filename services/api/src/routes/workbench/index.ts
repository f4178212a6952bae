import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env';
import { registerCompareExecutions } from './compare';
import { registerReplayExecution } from './replay';
import { registerTestWorkflow } from './test-run';

/** The workbench (DESIGN §15): test runs, replays and comparisons of executions. */
export function registerWorkbenchRoutes(app: OpenAPIHono<AppEnv>) {
  registerTestWorkflow(app);
  registerReplayExecution(app);
  registerCompareExecutions(app);
}
