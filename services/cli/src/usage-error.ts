/** A mistake in what the user asked for (e.g. an unknown --org): one line on stderr and exit code 2, as commander's own usage errors. */
export class UsageError extends Error {
  override name = 'UsageError';
}
