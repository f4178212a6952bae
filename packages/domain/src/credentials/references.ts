import { schema, type Tx } from '@weft/db';
import { and, eq, inArray } from 'drizzle-orm';
import { type FieldErrors, validationError } from '../errors';
import { HTTP_CREDENTIAL_TYPES } from './credential-types';

interface CredentialReference {
  field: string;
  id: string;
}

/** Where a workflow names credentials: the polling trigger and HTTP nodes (`credential_id`). */
function referencesOf(workflow: {
  trigger_config: Record<string, unknown>;
  nodes: { type: string; config: Record<string, unknown> }[];
}): CredentialReference[] {
  const refs: CredentialReference[] = [];
  const triggerCredential = workflow.trigger_config.credential_id;
  if (typeof triggerCredential === 'string') {
    refs.push({ field: 'trigger_config.credential_id', id: triggerCredential });
  }
  workflow.nodes.forEach((node, index) => {
    const id = node.config.credential_id;
    if (typeof id === 'string') refs.push({ field: `nodes.${index}.config.credential_id`, id });
  });
  return refs;
}

/**
 * Refuses (422 on the field) a workflow that names a credential its organization does not have,
 * or one of a type its node cannot use, so the mistake shows at save and not at 3 a.m.
 */
export async function assertCredentialReferences(
  tx: Tx,
  organizationId: string,
  workflow: Parameters<typeof referencesOf>[0],
): Promise<void> {
  const refs = referencesOf(workflow);
  if (refs.length === 0) return;
  const c = schema.credentials;
  const rows = await tx
    .select({ id: c.id, type: c.type })
    .from(c)
    .where(and(eq(c.organizationId, organizationId), inArray(c.id, [...new Set(refs.map((r) => r.id))])));
  const typeOf = new Map(rows.map((row) => [row.id, row.type]));
  const fields: FieldErrors = {};
  for (const ref of refs) {
    const type = typeOf.get(ref.id);
    if (type === undefined) fields[ref.field] = ['No credential with this id exists in this organization'];
    else if (!(HTTP_CREDENTIAL_TYPES as readonly string[]).includes(type)) {
      fields[ref.field] = [
        `Must be a credential of type ${HTTP_CREDENTIAL_TYPES.join(', ')} (this one is ${type})`,
      ];
    }
  }
  if (Object.keys(fields).length > 0) throw validationError(fields);
}
