/**
 * The runners of the node types that run in an activity, one line each. Not for workflow code:
 * runners parse configs with zod and do I/O. The generic `runNode` activity looks them up here.
 */
import { aiPromptRunner } from './ai-prompt/run';
import { chatSendRunner } from './chat-send/run';
import { chatSendTemplateRunner } from './chat-send-template/run';
import { codeRunner } from './code/run';
import { emailSendRunner } from './email-send/run';
import { eventPublishRunner } from './event-publish/run';
import { httpRequestRunner } from './http-request/run';
import { canonicalNodeType } from './registry';
import type { NodeRunner } from './runner';

export const NODE_RUNNERS: Readonly<Record<string, NodeRunner>> = {
  'action.http_request': httpRequestRunner,
  'action.code': codeRunner,
  'action.email.send': emailSendRunner,
  'action.chat.send': chatSendRunner,
  'action.chat.send_template': chatSendTemplateRunner,
  'action.ai.prompt': aiPromptRunner,
  'action.event.publish': eventPublishRunner,
};

export function getNodeRunner(type: string): NodeRunner | undefined {
  const canonical = canonicalNodeType(type);
  return Object.hasOwn(NODE_RUNNERS, canonical) ? NODE_RUNNERS[canonical] : undefined;
}

/** Terminates the code node's sandbox threads: call once when the process shuts down. */
export { closeCodeSandbox } from './code/sandbox';
export * from './runner';
