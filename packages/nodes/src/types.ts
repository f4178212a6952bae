/**
 * Every node type version, one line each: adding a type is its folder and its line here (the
 * registry, GET /node-types and every table and test list derive from this module). A type whose
 * config changes incompatibly gets a second definition (`version: 2`) on a line of its own, and
 * keeps the old one: saved nodes run on the version they were built with.
 * Type strings are public API: never rename one. The editor's palette orders by category, then name.
 */
export { aiAgent } from './ai-agent/schema';
export { aiPrompt } from './ai-prompt/schema';
export { approval } from './approval/schema';
export { chatSend } from './chat-send/schema';
export { chatSendTemplate } from './chat-send-template/schema';
export { code } from './code/schema';
export { condition } from './condition/schema';
export { delay } from './delay/schema';
export { emailSend } from './email-send/schema';
export { eventPublish } from './event-publish/schema';
export { httpRequest } from './http-request/schema';
export { loop } from './loop/schema';
export { merge } from './merge/schema';
export { switchNode } from './switch/schema';
export { transform } from './transform/schema';
export { waitForEvent } from './wait-for-event/schema';
export { workflowExecute } from './workflow-execute/schema';
