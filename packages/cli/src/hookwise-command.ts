// The base of every hookwise command: errors a user can fix end the command with their message (and their code
// under --json, where the answer is `{"error": {"message", "code"}}` instead of oclif's internals), and a mistyped
// flag gets a suggestion ("--event" -> "did you mean --events?").
import { Command, Errors } from '@oclif/core';
import { HookwiseConfigError, isHookwiseError } from '@hookwise/core';
import { userMessage } from './config-dir';
import { closestMatch } from './did-you-mean';

export interface JsonError {
  error: {
    message: string;
    /** A Hookwise error code (HW_E_...) when there is one: docs/errors.md explains it. */
    code?: string;
    /** Every problem, when several were found at once (a config that does not validate). */
    problems?: string[];
  };
}

interface OclifError extends Error {
  code?: string;
  oclif?: { exit?: number };
  flags?: string[];
  problems?: string[];
}

/** The flags a command knows, as typed on the command line (`--events`, `-y`). */
function knownFlags(command: typeof Command): string[] {
  const flags = { ...(command.baseFlags ?? {}), ...(command.flags ?? {}) };
  if (command.enableJsonFlag) flags.json = { name: 'json' } as never;
  return Object.entries(flags).flatMap(([name, flag]) => [`--${name}`, ...((flag as { char?: string }).char ? [`-${(flag as { char: string }).char}`] : [])]);
}

export abstract class HookwiseCommand extends Command {
  /** Ends the command with exit 1 and a message a user can act on; a Hookwise error keeps its code for --json. */
  protected fail(err: unknown): never {
    const code = isHookwiseError(err) || err instanceof HookwiseConfigError ? (err as { code: string }).code : undefined;
    const failure: OclifError = new Errors.CLIError(userMessage(err), { exit: 1, code });
    if (err instanceof HookwiseConfigError) failure.problems = err.problems;
    throw failure;
  }

  protected override toErrorJson(err: unknown): JsonError {
    const e = err as OclifError;
    const json: JsonError = { error: { message: e instanceof Error ? e.message : String(err) } };
    if (typeof e.code === 'string' && e.code.startsWith('HW_E_')) json.error.code = e.code;
    if (Array.isArray(e.problems)) json.error.problems = e.problems;
    return json;
  }

  override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const e = err as OclifError;
    // `this.exit(n)` after the command has printed its own answer: nothing more to say, in JSON or not.
    if (e.code === 'EEXIT') {
      process.exitCode = e.oclif?.exit ?? 1;
      if (this.jsonEnabled()) return undefined;
      throw err;
    }
    if (Array.isArray(e.flags) && e.message.startsWith('Nonexistent flag')) {
      const known = knownFlags(this.ctor);
      const hints = e.flags.map((flag) => [flag, closestMatch(flag.split('=')[0], known)] as const).filter(([, match]) => match);
      if (hints.length) {
        const lines = e.message.split('\n');
        lines[0] += ` (did you mean ${hints.map(([, match]) => match).join(', ')}?)`;
        e.message = lines.join('\n');
      }
    }
    return super.catch(err);
  }
}
