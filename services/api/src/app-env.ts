import type { Authenticated, ServiceContext } from '@weft/services';

/** Per-request values set by middleware and read by handlers. */
export interface AppEnv {
  Variables: {
    auth: Authenticated;
    ctx: ServiceContext;
  };
}
