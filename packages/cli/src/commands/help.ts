// `hookwise help [topic] [command]`: the help of a topic or command, as `--help` shows it; a typo gets a suggestion.
import { Args, Help } from '@oclif/core';
import { HookwiseCommand } from '../hookwise-command';
import { suggestCommand } from '../hooks/command-not-found';

export default class HelpCommand extends HookwiseCommand {
  static override description = 'Show help for a topic or a command (the same as --help after it).';
  static override examples = ['<%= config.bin %> help', '<%= config.bin %> help webhook', '<%= config.bin %> help webhook subscribe'];
  static override strict = false;
  static override args = { command: Args.string({ description: 'Topic or command, e.g. webhook or webhook subscribe.', required: false }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand);
    const words = (argv as string[]).filter((word) => !word.startsWith('-'));
    const id = words.join(':');
    if (words.length && !this.config.findCommand(id) && !this.config.findTopic(id)) {
      const suggestion = suggestCommand(
        words,
        this.config.commandIDs,
        this.config.topics.map((t) => t.name),
      );
      this.error(
        `no help for '${words.join(' ')}': it is not a ${this.config.bin} command or topic.${suggestion ? ` Did you mean \`${this.config.bin} help ${suggestion}\`?` : ''}`,
        { exit: 2 },
      );
    }
    await new Help(this.config).showHelp(words);
  }
}
