import { postgresErrorCode, UNIQUE_VIOLATION } from '@weft/db';
import { AppError } from '../errors';

/** Two credentials of one organization cannot share a name (workflows and people refer to it). */
export async function uniqueNameConflict<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    // The name index is the table's only unique constraint besides the generated primary key.
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      // 409 like a user's taken e-mail: the body is valid, the organization's state refuses it.
      throw new AppError('conflict', 'A credential with this name already exists.', {
        name: ['A credential with this name already exists'],
      });
    }
    throw error;
  }
}
