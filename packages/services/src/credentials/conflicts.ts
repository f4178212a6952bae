import { postgresErrorCode, UNIQUE_VIOLATION } from '@weft/db';
import { validationError } from '../errors';

/** Two credentials of one organization cannot share a name (workflows and people refer to it). */
export async function uniqueNameConflict<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    // The name index is the table's only unique constraint besides the generated primary key.
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      throw validationError({ name: ['A credential with this name already exists'] });
    }
    throw error;
  }
}
