/** The credential types an HTTP request (node or polling trigger) can authenticate with. */
export const HTTP_AUTH_CREDENTIAL_TYPES = ['http_bearer', 'http_header', 'http_basic'] as const;

/**
 * The request headers an opened HTTP credential adds. They are merged over the config's own
 * headers at send time only: they never reach a step's resolved config, the history or a log.
 */
export function credentialHeaders(credential: {
  type: string;
  fields: Record<string, string>;
}): Record<string, string> {
  const { type, fields } = credential;
  switch (type) {
    case 'http_bearer':
      return { authorization: `Bearer ${fields.token ?? ''}` };
    case 'http_header':
      return { [String(fields.name).toLowerCase()]: fields.value ?? '' };
    case 'http_basic':
      return {
        authorization: `Basic ${Buffer.from(`${fields.username ?? ''}:${fields.password ?? ''}`).toString('base64')}`,
      };
    default:
      throw new Error(`credential type ${type} does not authenticate HTTP requests`);
  }
}
