import password from '@inquirer/password';

/**
 * A password for `weft user create`, never from argv (argv is visible to every user of the machine
 * in `ps` and lands in shell history): `--password-stdin` reads it from standard input (one line, as
 * `docker login --password-stdin` does), otherwise a terminal prompt asks twice without echoing.
 */
export async function readPassword(options: { fromStdin: boolean }): Promise<string> {
  if (options.fromStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (text === '') throw new Error('--password-stdin: standard input was empty');
    return text;
  }
  if (!process.stdin.isTTY) {
    throw new Error('no terminal to ask for the password: pipe it in with --password-stdin');
  }
  const first = await password({ message: 'Password (8+ characters):', mask: '*' });
  const again = await password({ message: 'Same password again:', mask: '*' });
  if (first !== again) throw new Error('the two passwords differ');
  return first;
}
