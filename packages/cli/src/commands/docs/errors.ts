// `hookwise docs errors [code]`: the docs/errors.md shipped with the CLI, whole or one code's section. Every error
// message ends with this command (core's DOCS_BASE), so its explanation never depends on a website.
import { Args } from '@oclif/core';
import { HookwiseCommand } from '../../hookwise-command';
import { closestMatch } from '@hookwise/core';
import { errorDocCodes, errorDocSection, errorDocsCandidates, readErrorDocs } from '../../error-docs';

export default class DocsErrors extends HookwiseCommand {
  static override description = 'Print what an error code means and what to do (docs/errors.md, shipped with the CLI); without a code, the whole page.';
  static override examples = [
    '<%= config.bin %> docs errors hw_e_config',
    '<%= config.bin %> docs errors HW_E_INVALID_SIGNATURE',
    '<%= config.bin %> docs errors',
  ];
  static override args = { code: Args.string({ description: 'An error code, e.g. hw_e_config (as error messages name it) or HW_E_CONFIG.', required: false }) };
  static override enableJsonFlag = true;

  async run(): Promise<{ path: string; code?: string; text: string }> {
    const { args } = await this.parse(DocsErrors);
    const docs = readErrorDocs();
    if (!docs) {
      this.error(
        `docs/errors.md is not installed here (looked in ${errorDocsCandidates().join(' and ')}): reinstall the CLI, or read docs/errors.md in the repository.`,
        { exit: 1 },
      );
    }
    if (args.code === undefined) {
      this.log(docs.page.trimEnd());
      return { path: docs.path, text: docs.page };
    }
    const section = errorDocSection(docs.page, args.code);
    if (section === undefined) {
      const codes = errorDocCodes(docs.page);
      const match = closestMatch(args.code.toUpperCase(), codes);
      this.error(
        `no error code '${args.code}' in ${docs.path}.${match ? ` Did you mean ${match.toLowerCase()}?` : ''} Codes: ${codes.map((c) => c.toLowerCase()).join(', ')}.`,
        { exit: 2 },
      );
    }
    this.log(section);
    this.log(`\n(${docs.path}#${args.code.trim().toLowerCase()})`);
    return { path: docs.path, code: args.code.trim().toUpperCase(), text: section };
  }
}
