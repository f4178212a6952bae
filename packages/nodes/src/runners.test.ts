import { describe, expect, it } from 'vitest';
import { runContext } from '../test/run-context';
import { loadNodeRunner, NodeRunError } from './runners';

const context = (overrides: Parameters<typeof runContext>[0] = {}) => runContext(overrides);

const runnerOf = async (type: string) => {
  const runner = await loadNodeRunner(type);
  if (!runner) throw new Error(`no runner for ${type}`);
  return runner;
};

describe('the runners in the registry', () => {
  it('action.event.publish raises its event with the config payload, else the trigger', async () => {
    const published: unknown[] = [];
    const ctx = context({
      input: { trigger: { order: 1 } },
      publishEvent: async (event, payload) => {
        published.push([event, payload]);
        return { workflows_triggered: 2, execution_ids: ['a', 'b'] };
      },
    });
    const runner = await runnerOf('action.event.publish');
    expect(await runner.run({ event: 'order.shipped', payload: { id: 9 } }, ctx)).toEqual({
      workflows_triggered: 2,
      execution_ids: ['a', 'b'],
    });
    await runner.run({ event: 'order.shipped' }, ctx);
    expect(published).toEqual([
      ['order.shipped', { id: 9 }],
      ['order.shipped', { order: 1 }],
    ]);
  });

  it('action.event.publish refuses an event name that interpolation made invalid', async () => {
    await expect(
      (await runnerOf('action.event.publish')).run({ event: 'Not An Event' }, context()),
    ).rejects.toThrow(/category\.action/);
  });

  it('action.code runs the source with the upstream input; user errors are final NodeRunErrors', async () => {
    const runner = await runnerOf('action.code');
    const ctx = context({ input: { trigger: { n: 4 }, nodes: { prev: { m: 3 } }, loop: null } });
    expect(await runner.run({ code: 'return input.trigger.n * input.nodes.prev.m' }, ctx)).toBe(12);
    const error = await runner.run({ code: 'throw new Error("nope")' }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeRunError);
    expect(error).toMatchObject({ code: 'code_error', retryable: false });
    expect((error as Error).message).toContain('nope');
  });

  it('module nodes fail finally with module_not_configured, naming the module, when it is not set up', async () => {
    const email = { to: 'a@example.com', subject: 'Hi', body: 'Hello' };
    for (const [type, config, module] of [
      ['action.email.send', email, 'e-mail'],
      ['email_send', email, 'e-mail'],
      ['action.chat.send', { to: '+14155550100', message: 'Hi' }, 'chat'],
      [
        'action.chat.send_template',
        { to: '+14155550100', template_name: 'welcome', language: 'en_US' },
        'chat',
      ],
      ['action.ai.prompt', { prompt: 'Hi' }, 'AI'],
    ] as const) {
      const error = await (await runnerOf(type))
        .run(config, context({ openModule: async () => null }))
        .catch((e: unknown) => e);
      expect(error, type).toMatchObject({ code: 'module_not_configured', retryable: false });
      expect((error as Error).message).toContain(`the ${module} module`);
    }
  });
});
