import { describe, expect, it } from 'vitest';
import { getNodeType } from '../registry';
import { EventPublishConfig } from './schema';

describe('action.event.publish config', () => {
  it('is the schema registered for action.event.publish', () => {
    expect(getNodeType('action.event.publish')?.config).toBe(EventPublishConfig);
  });

  it('accepts category.action with a payload', () => {
    expect(
      EventPublishConfig.safeParse({ event: 'lead.created', payload: { id: '{{trigger.id}}' } }).success,
    ).toBe(true);
  });

  it('refuses a name without a dot, with a wildcard or upper case', () => {
    for (const event of ['lead', 'lead.*', 'Lead.Created', 'lead..created', '']) {
      expect(EventPublishConfig.safeParse({ event }).success, event).toBe(false);
    }
  });
});
