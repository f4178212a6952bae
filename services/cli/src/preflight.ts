import { mkdir, statfs } from 'node:fs/promises';
import { createServer } from 'node:net';

/**
 * Checks `weft up` makes before it starts anything, so that a common mistake ends in one line that
 * says what to do instead of a stack trace from whichever child tripped over it first.
 */

/** An error whose message is the whole story: printed as is, and `weft up` exits 1. */
export class StartupProblem extends Error {
  override name = 'StartupProblem';
}

/** Below this, initdb, the Temporal state file and the workflow bundle soon fail half-way. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Turns the errors a data directory gives into the line a person can act on. */
export function describeDataDirError(dataDir: string, error: unknown): StartupProblem | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const fix = 'or set WEFT_DATA_DIR to a directory this user can write';
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new StartupProblem(
        `no space left for the data directory ${dataDir} (${code}): free some space on that disk or set WEFT_DATA_DIR to another one`,
      );
    case 'EACCES':
    case 'EPERM':
      return new StartupProblem(
        `the data directory ${dataDir} is not writable by this user (${code}): fix its permissions ${fix}`,
      );
    case 'EROFS':
      return new StartupProblem(
        `the data directory ${dataDir} is on a read-only file system: ${fix.slice(3)}`,
      );
    case 'ENOTDIR':
    case 'EEXIST':
      return new StartupProblem(
        `the data directory ${dataDir} cannot be created: part of that path is a file (${code}); ${fix.slice(3)}`,
      );
    default:
      return undefined;
  }
}

/** Creates the data directory and makes sure its disk has room; throws a StartupProblem otherwise. */
export async function prepareDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    throw describeDataDirError(dataDir, error) ?? error;
  }
  const fs = await statfs(dataDir);
  const free = fs.bavail * fs.bsize;
  if (free < MIN_FREE_BYTES) {
    throw new StartupProblem(
      `the disk of the data directory ${dataDir} is full (${megabytes(free)} free, PostgreSQL and Temporal need at least ${megabytes(MIN_FREE_BYTES)}): free some space or set WEFT_DATA_DIR to another disk`,
    );
  }
}

/** A port `weft up` is about to listen on, and the variable that moves it. */
export interface WantedPort {
  port: number;
  host: string;
  variable: string;
  what: string;
}

function portTaken({ port, host }: WantedPort): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(false)));
  });
}

/**
 * Throws a StartupProblem naming the first port another program holds. Checked before anything
 * starts: otherwise PostgreSQL or Temporal fails deep inside its start-up, or (the app port) the
 * stack comes up only to have its web server die.
 */
export async function checkPortsFree(ports: WantedPort[]): Promise<void> {
  for (const wanted of ports) {
    if (await portTaken(wanted)) {
      throw new StartupProblem(
        `port ${wanted.port} (${wanted.variable}, ${wanted.what}) is already in use by another program: stop it or set ${wanted.variable} to a free port`,
      );
    }
  }
}
