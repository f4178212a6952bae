import { NodeRunError, type NodeRunner } from './runner';

/**
 * The runner of a node type whose organization module (e-mail, chat, AI) has no configuration:
 * every run fails, finally, with `module_not_configured` and the module's name.
 */
export function moduleNotConfiguredRunner(nodeType: string, module: 'e-mail' | 'chat' | 'AI'): NodeRunner {
  return {
    async run() {
      throw new NodeRunError(
        'module_not_configured',
        `${nodeType} needs the ${module} module, which is not configured for this organization`,
        false,
      );
    },
  };
}
