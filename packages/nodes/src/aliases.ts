/** Older or shorter spellings of node types, accepted on input and stored in canonical form. */
export const NODE_TYPE_ALIASES: Readonly<Record<string, string>> = { email_send: 'action.email.send' };

export function canonicalNodeType(type: string): string {
  return Object.hasOwn(NODE_TYPE_ALIASES, type) ? (NODE_TYPE_ALIASES[type] as string) : type;
}
