import { type Command, InvalidArgumentError, Option } from 'commander';
import { ENGINE_SCENARIOS, type EngineScenario } from './bench/engine-scenarios';
import { collect, jsonOption, positiveInt, positiveIntList, wholeNumber } from './program-options';

function scenarioList(value: string): EngineScenario[] {
  const picked = value.split(',').map((s) => s.trim());
  const unknown = picked.filter((s) => !(ENGINE_SCENARIOS as readonly string[]).includes(s));
  if (unknown.length > 0 || picked.length === 0) {
    throw new InvalidArgumentError(`pick from ${ENGINE_SCENARIOS.join(',')} (got ${value})`);
  }
  return picked as EngineScenario[];
}

/**
 * `weft bench …`: each starts its own stack on fresh data and prints its figures (minutes). A bench
 * module is loaded only when its command runs, so `--help` stays instant.
 */
export function addBenchCommands(program: Command): void {
  const bench = program
    .command('bench')
    .description('measure the API, the engine, triggers, modules and the web app on a fresh stack');

  bench
    .command('api')
    .description('REST reads and writes at several concurrencies over a seeded organization')
    .option('--workflows <n>', 'workflows to seed', positiveInt, 10_000)
    .option('--seconds <n>', 'seconds per concurrency', positiveInt, 10)
    .option('--concurrency <list>', 'concurrencies to run', positiveIntList, [1, 16, 64])
    .action(async (o) => (await import('./bench/api')).benchApiCommand(o));

  bench
    .command('engine')
    .description(
      'executions per second and latency of the engine, CPU per process, memory with waiting executions',
    )
    .option('--executions <n>', 'executions per concurrency', positiveInt, 2000)
    .option('--concurrency <list>', 'concurrencies to run', positiveIntList, [1, 16, 64])
    .option('--fanout <n>', 'items of the loop fan-out case (0 skips it)', wholeNumber, 500)
    .option('--waiting <n>', 'executions left waiting for the memory case (0 skips it)', wholeNumber, 1000)
    .option('--sqlite-sync-off', "the dev server's SQLite without fsync (throughput runs)")
    .addOption(
      new Option('--layout <layout>', 'API and worker in one process or two').choices(['combined', 'split']),
    )
    .option('--workers <n>', 'worker processes of the split layout', positiveInt, 1)
    .option(
      '--scenarios <list>',
      'scenarios to run: a no-op, b 4-node, g HTTP flow, f 202 only, d fan-out, e waiting',
      scenarioList,
      [...ENGINE_SCENARIOS],
    )
    .addOption(
      new Option('--observe <what>', 'how an execution end is seen')
        .choices(['database', 'temporal'])
        .default('database'),
    )
    .option('--temporal-config <KEY=JSON>', 'extra dynamic config of the dev server (repeatable)', collect)
    .option('--temporal-address <host:port>', 'use this Temporal server instead of starting a dev server')
    .option('--temporal-metrics-url <url>', "that server's Prometheus metrics")
    .option('--temporal-pid <pid>', "that server's process id (for its CPU)", positiveInt)
    .addOption(jsonOption())
    .action(async (o) => {
      const { benchEngineCommand } = await import('./bench/engine-throughput');
      await benchEngineCommand({
        executions: o.executions,
        concurrency: o.concurrency,
        fanout: o.fanout,
        waiting: o.waiting,
        sqliteSynchronous: o.sqliteSyncOff ? 'OFF' : 'NORMAL',
        temporalConfig: o.temporalConfig,
        layout: o.layout,
        workers: o.workers,
        scenarios: o.scenarios,
        observe: o.observe,
        external: o.temporalAddress
          ? { address: o.temporalAddress, metricsUrl: o.temporalMetricsUrl, pid: o.temporalPid }
          : undefined,
        json: o.json ?? false,
      });
    });

  bench
    .command('agent')
    .description('the AI agent loop: milliseconds per tool call beyond the model and tool stand-ins')
    .option('--runs <n>', 'executions of each kind', positiveInt, 9)
    .option('--tools <n>', 'sequential tool calls per execution', positiveInt, 10)
    .action(async (o) => (await import('./bench/agent')).benchAgentCommand(o));

  bench
    .command('soak')
    .description('a steady mixed load for minutes: RSS per process, errors and p99 drift each minute')
    .option('--minutes <n>', 'minutes of load', positiveInt, 30)
    .option(
      '--rate <per second>',
      'executions started per second (half the engine bench maximum)',
      positiveInt,
      30,
    )
    .addOption(jsonOption())
    .action(async (o) => {
      await (await import('./bench/soak')).benchSoakCommand({
        minutes: o.minutes,
        rate: o.rate,
        json: o.json ?? false,
      });
    });

  bench
    .command('triggers')
    .description('outbound deliveries/s, polling load and schedule accuracy')
    .option('--deliveries <n>', 'webhook deliveries (0 skips)', wholeNumber, 2000)
    .option('--concurrency <n>', 'concurrent event publishers', positiveInt, 64)
    .option('--pollers <n>', 'polling workflows (0 skips)', wholeNumber, 100)
    .option('--polls <n>', 'polls each', positiveInt, 4)
    .option('--schedules <n>', 'scheduled workflows (0 skips)', wholeNumber, 200)
    .option('--minutes <n>', 'minutes of schedule firing to observe', positiveInt, 5)
    .action(async (o) => (await import('./bench/triggers')).benchTriggersCommand(o));

  bench
    .command('modules')
    .description('chat sends through the message outbox')
    .option('--sends <n>', 'messages to send', positiveInt, 2000)
    .option('--concurrency <n>', 'concurrent senders', positiveInt, 16)
    .action(async (o) => (await import('./bench/modules')).benchModulesCommand(o));

  bench
    .command('executions')
    .description('executions list paging (offset and keyset) over a large table')
    .option('--rows <n>', 'execution rows to seed', positiveInt, 1_000_000)
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./bench/executions-paging')).benchExecutionsPagingCommand({
        rows: o.rows,
        json: o.json ?? false,
      }),
    );

  bench
    .command('keys')
    .description('weft keys rotate over sealed values on a fresh database (and the start-up check)')
    .option('--values <n>', 'sealed values to seed', positiveInt, 10_000)
    .option('--batch-size <n>', 'rows re-sealed per transaction', positiveInt, 500)
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./bench/keys')).benchKeysCommand({
        values: o.values,
        batchSize: o.batchSize,
        json: o.json ?? false,
      }),
    );

  bench
    .command('mcp')
    .description('MCP tools/call latency of a one-node tool workflow, through the official SDK client')
    .option('--calls <n>', 'calls per concurrency', positiveInt, 500)
    .option('--concurrency <list>', 'concurrencies to run', positiveIntList, [1, 8])
    .addOption(jsonOption())
    .action(async (o) =>
      (await import('./bench/mcp')).benchMcpCommand({
        calls: o.calls,
        concurrency: o.concurrency,
        json: o.json ?? false,
      }),
    );

  bench
    .command('web')
    .description("the executions page's first load in chromium")
    .option('--rows <n>', 'executions to seed', positiveInt, 10_000)
    .option('--runs <n>', 'page loads to time', positiveInt, 5)
    .action(async (o) => (await import('./bench/web')).benchWebCommand({ executions: o.rows, runs: o.runs }));

  bench
    .command('editor')
    .description('the canvas editor: open, drag frames, palette filter')
    .option('--nodes <n>', 'steps in the workflow', positiveInt, 200)
    .option('--runs <n>', 'opens to time', positiveInt, 5)
    .option('--unplaced', 'save the graph without positions (layout on open)')
    .action(async (o) =>
      (await import('./bench/editor')).benchEditorCommand({
        nodes: o.nodes,
        runs: o.runs,
        unplaced: o.unplaced ?? false,
      }),
    );
}
