// The base of every hookwise command: errors a user can fix end the command with their message (and their code
// under --json, where the answer is `{"error": {"message", "code"}}` instead of oclif's internals), and a mistyped
// flag gets a suggestion ("--event" -> "did you mean --events?").
import { Command, Errors } from '@oclif/core';
import { closestMatch, HookwiseConfigError, isHookwiseError } from '@hookwise/core';
import { configDirOrigin, describeConfigDir, userMessage, type ConfigDirOrigin } from './config-dir';
import { chooseProfile, describeProfile, type ProfileChoice } from './profile-choice';

export interface JsonError {
  error: {
    message: string;
    /** A Hookwise error code (HW_E_...) when there is one: docs/errors.md explains it. */
    code?: string;
    /** Every problem, when several were found at once (a config that does not validate). */
    problems?: string[];
    /** The config dir the command read and what chose it, when it names one (see readsConfigDir). */
    config_dir?: string;
    config_dir_from?: ConfigDirOrigin['config_dir_from'];
    /** The profile the command acted on, when --profile (or $HOOKWISE_PROFILE) chose one. */
    profile?: string;
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
  /** Set by readsConfigDir: answers that find nothing, and --json errors, name the dir and what chose it. */
  protected configDirRead?: ConfigDirOrigin;

  /** Set by readsConfigDir: the profile this run acts on (its folder, or the config dir for the default one). */
  protected profileRead?: ProfileChoice;

  /**
   * Records which config dir this run reads (from its --config-dir flag, $HOOKWISE_HOME or the default) and which
   * profile of it (--profile, $HOOKWISE_PROFILE); a profile that does not exist ends the command here.
   */
  protected readsConfigDir(flags: { 'config-dir'?: string; profile?: string }): ProfileChoice {
    this.configDirRead = configDirOrigin(flags['config-dir']);
    let choice: ProfileChoice;
    try {
      choice = chooseProfile(flags['config-dir'], flags.profile);
    } catch (err) {
      this.fail(err);
    }
    this.profileRead = choice;
    return choice;
  }

  /**
   * "<what> in /dir (from $HOOKWISE_HOME)": a second shell without the export sees why it found nothing; with a
   * profile, "<what> in profile 'acme' (/dir/profiles/acme)".
   */
  protected whereRead(what: string): string {
    if (this.profileRead?.profile) return `${what} in ${describeProfile(this.profileRead)}`;
    return this.configDirRead ? `${what} in ${describeConfigDir(this.configDirRead)}` : what;
  }

  /**
   * Says that nothing was found and where it looked. Under --json the answer on stdout keeps its shape (an empty
   * list), so the sentence goes to stderr, where a person running the pipe still sees it.
   */
  protected logNothingFound(what: string, next?: string): void {
    const text = `${this.whereRead(what)}.${next ? ` ${next}` : ''}`;
    if (this.jsonEnabled()) process.stderr.write(`${text}\n`);
    else this.log(text);
  }

  /**
   * Ends the command with exit 1 and a message a user can act on; a Hookwise error keeps its code for --json.
   * `where`: the failure may be "not found", so the message ends with the config dir that was read.
   */
  protected fail(err: unknown, where = false): never {
    const code = isHookwiseError(err) || err instanceof HookwiseConfigError ? (err as { code: string }).code : undefined;
    const profile = this.profileRead?.profile ? `\nProfile: ${describeProfile(this.profileRead)}` : '';
    const text = where && this.configDirRead ? `${userMessage(err)}\nConfig dir: ${describeConfigDir(this.configDirRead)}${profile}` : userMessage(err);
    const failure: OclifError = new Errors.CLIError(text, { exit: 1, code });
    if (err instanceof HookwiseConfigError) failure.problems = err.problems;
    throw failure;
  }

  protected override toErrorJson(err: unknown): JsonError {
    const e = err as OclifError;
    const json: JsonError = { error: { message: e instanceof Error ? e.message : String(err) } };
    if (typeof e.code === 'string' && e.code.startsWith('HW_E_')) json.error.code = e.code;
    if (Array.isArray(e.problems)) json.error.problems = e.problems;
    if (this.configDirRead) Object.assign(json.error, this.configDirRead);
    if (this.profileRead?.profile) json.error.profile = this.profileRead.profile;
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
    if (!this.jsonEnabled() && err instanceof Errors.CLIError && !process.env.DEBUG) {
      // oclif hard-wraps an error at the terminal width (80 columns when stderr is not a terminal), inside words
      // and `commands` a user copies; the terminal wraps a long line by itself without breaking what it holds.
      const lines = [`Error: ${err.message}`, ...(typeof e.code === 'string' && e.code.startsWith('HW_E_') ? [`Code: ${e.code}`] : [])];
      process.stderr.write(
        `${lines
          .flatMap((text) => text.split('\n'))
          .map((line) => ` ${err.bang ?? '›'}   ${line}`)
          .join('\n')}\n`,
      );
      process.exitCode = e.oclif?.exit ?? 2;
      return undefined;
    }
    return super.catch(err);
  }
}
