/** An HTTP request's timeout when its config gives none. */
export const HTTP_DEFAULT_TIMEOUT_MS = 30_000;

/** Requests allowed to take longer run as regular, heartbeating activities (workflow.ts). */
export const HTTP_LOCAL_MAX_TIMEOUT_MS = 30_000;
