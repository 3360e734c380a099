// oclif's command_not_found hook: "hookwise webhok list" answers with the command that was probably meant
// ("did you mean: hookwise webhook list?") instead of "command webhok not found".
import { Errors, type Hook } from '@oclif/core';
import { closestMatch } from '@hookwise/core';

/** What the user typed, as words: oclif passes the unknown id (`webhok`, or `webhook:lst`) and the rest of argv. */
function typedWords(id: string, argv: readonly string[]): string[] {
  return [...id.split(':'), ...argv.filter((arg) => !arg.startsWith('-'))];
}

/** The command or topic the words most likely meant, written with spaces. */
export function suggestCommand(words: readonly string[], commandIds: readonly string[], topics: readonly string[]): string | undefined {
  const known = [...commandIds, ...topics].map((id) => id.split(':'));
  // Longest first: "webhok list" should become "webhook list", not only "webhook".
  for (let length = Math.min(words.length, 3); length >= 1; length--) {
    const typed = words.slice(0, length).join(' ');
    const candidates = known.filter((parts) => parts.length === length).map((parts) => parts.join(' '));
    const match = closestMatch(typed, candidates);
    if (match) return match;
  }
  return undefined;
}

const hook: Hook<'command_not_found'> = async function (options) {
  const words = typedWords(options.id, options.argv ?? []);
  const bin = options.config.bin;
  const suggestion = suggestCommand(
    words,
    options.config.commandIDs,
    options.config.topics.map((t) => t.name),
  );
  const typed = options.id.split(':').join(' ');
  const hint = suggestion ? ` Did you mean \`${bin} ${suggestion}\`?` : '';
  throw new Errors.CLIError(`'${typed}' is not a ${bin} command.${hint} See \`${bin} --help\` for the commands.`, { exit: 2 });
};

export default hook;
