import type { Authenticated, ExecutionEngine, ServiceContext } from '@weft/services';

/** Per-request values set by middleware and read by handlers. */
export interface AppEnv {
  Variables: {
    auth: Authenticated;
    ctx: ServiceContext;
    engine: ExecutionEngine;
    temporalUiUrl: string;
    /** APP_URL: the origin of URLs the API hands out (webhook_url). */
    siteUrl: string;
  };
}
