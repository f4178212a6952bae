import { redactText } from '@weft/telemetry/redact';
import { CommanderError } from 'commander';
import { interruptStopsDone } from './interrupt';
import { createProgram } from './program';
import { UsageError } from './usage-error';

/** One line (or one per zod issue) for whatever stopped a command; never a stack trace. */
function describe(error: unknown): string {
  if (error instanceof Error && 'issues' in error && Array.isArray(error.issues)) {
    return error.issues
      .map((i: { path: PropertyKey[]; message: string }) => `${i.path.join('.') || 'value'}: ${i.message}`)
      .join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; a usage error was already printed: exit 2.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  // The logger's redactor: a failure that quotes a connection URL or a header keeps no secret.
  process.stderr.write(`weft: ${redactText(describe(error))}\n`);
  if (error instanceof UsageError) process.exit(2);
  // After Ctrl-C the command fails as its services stop: let the stops finish first.
  await interruptStopsDone();
  process.exit(1);
}
