export { isBlockedAddress, isBlockedHostname, parseAllowlist } from './address-policy';
export {
  createOutboundHttpClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  type LookupAll,
  type OutboundHttpClient,
  type OutboundHttpOptions,
  type OutboundRequest,
  type OutboundResponse,
  type ResolvedAddress,
} from './client';
export { OutboundHttpError, type OutboundHttpErrorCode } from './errors';
export { checkOutboundHeaders, checkOutboundUrl, MAX_URL_LENGTH } from './request-policy';
export { resolveAllowedHost } from './resolve-host';
