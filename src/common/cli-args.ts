/**
 * Command-line arguments of the CLIs (`npm run apikey`, `npm run token`): node's `parseArgs`, with its
 * refusals (an unknown option, an option without its value) turned into a usage error, a message and
 * the usage on one exit code 2, instead of a TypeError and its stack.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line: the CLI prints the message (with its usage) and exits 2. */
export class UsageError extends Error {}

export function parseCliArgs<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError(`${(error as Error).message}\n${usage}`);
    throw error;
  }
}

/**
 * For a CLI that takes no arguments (`npm run db:migrate`, `npm run db:seed`): any argument is a usage
 * error, so that `--dry-run` or `--status` never goes on to change the database.
 */
export function takesNoArguments(argv: string[], usage: string): void {
  const { values } = parseCliArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } } }, usage);
  if (values.help) throw new UsageError(usage);
}
