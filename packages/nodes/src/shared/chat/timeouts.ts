/**
 * The longest a chat send takes as a local activity: the provider call's own timeout (SEND_TIMEOUT_MS
 * in @weft/domain's chat/send.ts). Workflow-safe: the chat nodes' workflow.ts reads it.
 */
export const CHAT_SEND_LOCAL_UP_TO_MS = 30_000;
