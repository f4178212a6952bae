import type { NodeRunner } from '../runner';
import { EventPublishConfig } from './schema';

/** action.event.publish: an event inside the execution's organization; its payload defaults to the trigger. */
export const eventPublishRunner: NodeRunner = {
  async run(rawConfig, ctx) {
    const config = EventPublishConfig.parse(rawConfig);
    const payload = config.payload ?? (ctx.input.trigger as Record<string, unknown>);
    return ctx.publishEvent(config.event, payload);
  },
};
