import type { OpenAPIHono } from '@hono/zod-openapi';
import type { WebhookDeps } from '@weft/domain';
import type { AppEnv } from '../../app-env';
import { registerCreateWebhook } from './create';
import { registerDeleteWebhook } from './delete';
import { registerGetWebhook } from './get';
import { registerListWebhooks } from './list';
import { registerListWebhookDeliveries } from './list-deliveries';
import { registerSendWebhookTest } from './send-test';
import { registerUpdateWebhook } from './update';

/** The outbound webhook routes: CRUD plus the delivery log. */
export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>, deps: WebhookDeps) {
  registerListWebhooks(app);
  registerCreateWebhook(app, deps);
  registerGetWebhook(app);
  registerUpdateWebhook(app, deps);
  registerDeleteWebhook(app);
  registerListWebhookDeliveries(app);
  registerSendWebhookTest(app);
}
