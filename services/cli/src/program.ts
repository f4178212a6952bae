import { Argument, Command, Option } from 'commander';
import { addBenchCommands } from './program-bench';
import { jsonOption, orgOption, positiveInt } from './program-options';
import { weftVersion } from './project';

/**
 * The `weft` command line. commander parses it: `--help` on any command prints that command's help
 * and runs nothing, unknown commands and options stop with exit code 2, and every command's
 * options are listed in its help. Command modules load only when their command runs, so help is instant.
 */
export function createProgram(): Command {
  const program = new Command('weft')
    .description('Weft: self-hostable workflow automation on Temporal')
    .version(weftVersion(), '-V, --version', 'print the version')
    .showSuggestionAfterError()
    .configureOutput({ outputError: (text, write) => write(`weft: ${text.replace(/^error: /, '')}`) })
    .exitOverride();

  program
    .command('up')
    .description('run the whole stack: PostgreSQL, Temporal, migrations, web+API and worker; prints the URLs')
    .addOption(
      new Option(
        '--temporal <kind>',
        'dev: the Temporal CLI dev server (SQLite); cluster: temporal-server on PostgreSQL, as in production',
      )
        .choices(['dev', 'cluster'])
        .default('dev')
        .env('WEFT_TEMPORAL'),
    )
    .action(async (o) => (await import('./commands/up')).upCommand({ temporal: o.temporal }));

  program
    .command('test')
    .description('install what is missing and run every test suite (handled by ./weft itself)')
    .action(() => {
      throw new Error('run the tests with ./weft test');
    });

  program
    .command('migrate')
    .description('apply database migrations')
    .addOption(jsonOption())
    .action(async (o) => (await import('./commands/migrate')).migrateCommand({ json: o.json ?? false }));

  const keys = program.command('keys').description('APP_KEY and its ring (docs/key-custody.md)');
  keys
    .command('rotate')
    .description('re-seal every stored secret with APP_KEY (APP_KEYS_PREVIOUS still open the old ones)')
    .option('--batch-size <n>', 'rows re-sealed per transaction', positiveInt, 500)
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/keys')).keysRotateCommand({ batchSize: o.batchSize, json: o.json ?? false }),
    );
  keys
    .command('check')
    .description(
      'whether APP_KEY (or APP_KEYS_PREVIOUS) opens the sealed values in the database, as at start-up',
    )
    .addOption(jsonOption())
    .action(async (o) => (await import('./commands/keys')).keysCheckCommand({ json: o.json ?? false }));

  program
    .command('backup')
    .description('copy the embedded data (PostgreSQL and Temporal) to a directory; the stack must be stopped')
    .requiredOption('--to <dir>', 'a new or empty directory')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/backup')).backupCommand({ to: o.to, json: o.json ?? false }),
    );

  program
    .command('restore')
    .description('put a backup back into the data directory (the data it replaces is moved aside)')
    .requiredOption('--from <dir>', 'a directory written by weft backup')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/restore')).restoreCommand({ from: o.from, json: o.json ?? false }),
    );

  program
    .command('temporal')
    .description('Temporal administration')
    .command('setup')
    .description(
      "create the namespace and register Weft's search attributes (every deployment runs this once per start)",
    )
    .option(
      '--address <host:port>',
      'Temporal frontend (default: TEMPORAL_ADDRESS, else 127.0.0.1:TEMPORAL_PORT)',
    )
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/temporal-setup')).temporalSetupCommand({
        address: o.address,
        json: o.json ?? false,
      }),
    );

  program
    .command('org')
    .description('organizations')
    .command('create')
    .description('create an organization')
    .requiredOption('--name <name>', 'its name')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/org-create')).orgCreateCommand({ name: o.name, json: o.json ?? false }),
    );

  const user = program.command('user').description('users of an organization');
  user
    .command('create')
    .description(
      'create a user; the password is asked for at a prompt, or read from stdin with --password-stdin',
    )
    .addOption(orgOption())
    .requiredOption('--email <email>', 'their e-mail address')
    .option('--password-stdin', 'read the password from standard input (never from the command line)')
    .addOption(
      new Option('--role <role>', 'their role').choices(['admin', 'editor', 'viewer']).default('editor'),
    )
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/users')).userCreateCommand({
        org: o.org,
        email: o.email,
        passwordStdin: o.passwordStdin ?? false,
        role: o.role,
        json: o.json ?? false,
      }),
    );
  user
    .command('list')
    .description("list the organization's users")
    .addOption(orgOption())
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/users')).userListCommand({ org: o.org, json: o.json ?? false }),
    );
  user
    .command('revoke')
    .description('remove a user from the organization')
    .addOption(orgOption())
    .requiredOption('--id <user id>', 'the user')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/users')).userRevokeCommand({ org: o.org, id: o.id, json: o.json ?? false }),
    );

  user
    .command('reset-link')
    .description('print a fresh single-use password reset link for a user (valid 60 minutes; never logged)')
    .addOption(orgOption())
    .requiredOption('--email <email>', 'their e-mail address')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/users')).userResetLinkCommand({
        org: o.org,
        email: o.email,
        json: o.json ?? false,
      }),
    );

  const apiKey = program.command('api-key').description('API keys of an organization');
  apiKey
    .command('create')
    .description('create an API key and print it once')
    .addOption(orgOption())
    .requiredOption('--name <name>', 'a name for it')
    .requiredOption('--permissions <list>', 'comma-separated permissions, or * for all')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/api-keys')).apiKeyCreateCommand({
        org: o.org,
        name: o.name,
        permissions: o.permissions,
        json: o.json ?? false,
      }),
    );
  apiKey
    .command('list')
    .description("list the organization's API keys (never the keys themselves)")
    .addOption(orgOption())
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/api-keys')).apiKeyListCommand({ org: o.org, json: o.json ?? false }),
    );
  apiKey
    .command('revoke')
    .description('revoke an API key: refused from the next request on')
    .addOption(orgOption())
    .requiredOption('--id <key id>', 'the key')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/api-keys')).apiKeyRevokeCommand({
        org: o.org,
        id: o.id,
        json: o.json ?? false,
      }),
    );

  program
    .command('settings')
    .description('organization settings')
    .command('set')
    .description('change organization settings')
    .addOption(orgOption())
    .requiredOption('--cart-inactivity-minutes <n>', 'minutes without activity before cart.abandoned')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/settings-set')).settingsSetCommand({
        org: o.org,
        cartInactivityMinutes: o.cartInactivityMinutes,
        json: o.json ?? false,
      }),
    );

  program
    .command('triggers')
    .description('trigger maintenance')
    .command('reconcile')
    .description("repair schedule/polling workflows' Temporal Schedules")
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/triggers-reconcile')).triggersReconcileCommand({ json: o.json ?? false }),
    );

  const workflows = program.command('workflows').description('workflows of an organization');
  workflows
    .command('export')
    .description("write the organization's workflows to a JSON file")
    .addOption(orgOption())
    .requiredOption('--file <path>', 'the file to write')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/workflows-transfer')).workflowsExportCommand({
        org: o.org,
        file: o.file,
        json: o.json ?? false,
      }),
    );
  workflows
    .command('import')
    .description('create draft workflows from an export file')
    .addOption(orgOption())
    .requiredOption('--file <path>', 'the export file')
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./commands/workflows-transfer')).workflowsImportCommand({
        org: o.org,
        file: o.file,
        json: o.json ?? false,
      }),
    );

  program
    .command('chaos')
    .description('run a mixed load through a fault on a fresh stack and check the ledger (exit 1 on FAIL)')
    .addArgument(
      new Argument('<case>', 'the fault').choices([
        'temporal-kill',
        'worker-api-kill',
        'two-workers',
        'postgres-stop',
      ]),
    )
    .option('--executions <n>', 'executions in the mixed load', positiveInt, 60)
    .addOption(
      new Option(
        '--temporal <server>',
        'the Temporal server: the dev server, or temporal-server on PostgreSQL',
      )
        .choices(['dev', 'cluster'])
        .default('dev'),
    )
    .action(async (kase, o) =>
      (await import('./chaos/command')).chaosCommand({
        case: kase,
        executions: o.executions,
        temporal: o.temporal,
      }),
    );

  addBenchCommands(program);
  return program;
}
